package io.echomq.web.security;

import io.echomq.web.problem.Problem;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.net.URI;
import java.security.Principal;
import java.util.Set;

/**
 * Cross-site request forgery protection for state-changing calls. A browser names the page that
 * sent a request (Origin, Sec-Fetch-Site): a request from another origin is refused, and a
 * browser request from the console must carry the {@code X-CSRF-Token} of {@code GET
 * /api/session}. Scripts and servers (no browser headers) cannot be forged across sites, since
 * forging needs a victim's browser, so they need no token.
 */
@Provider
@Priority(Priorities.AUTHORIZATION + 10)
public class CsrfFilter implements ContainerRequestFilter {

    public static final String HEADER = "X-CSRF-Token";
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    @Inject
    CsrfTokens tokens;

    @Override
    public void filter(ContainerRequestContext request) {
        if (SAFE_METHODS.contains(request.getMethod())) {
            return;
        }
        String origin = request.getHeaderString("Origin");
        String fetchSite = request.getHeaderString("Sec-Fetch-Site");
        if (origin == null && fetchSite == null) {
            return;
        }
        if ((origin != null && !sameOrigin(origin, request.getUriInfo().getBaseUri()))
                || (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none"))) {
            request.abortWith(Problem.of(Response.Status.FORBIDDEN,
                    "cross-origin request refused: state-changing calls are accepted from this site only").toResponse());
            return;
        }
        Principal user = request.getSecurityContext().getUserPrincipal();
        if (user == null || !tokens.isValid(user.getName(), request.getHeaderString(HEADER))) {
            request.abortWith(Problem.of(Response.Status.FORBIDDEN, "missing or invalid CSRF token: send the "
                    + HEADER + " header with the csrfToken of GET /api/session").withField(HEADER).toResponse());
        }
    }

    private static boolean sameOrigin(String origin, URI base) {
        try {
            URI o = URI.create(origin);
            return o.getScheme() != null && o.getScheme().equalsIgnoreCase(base.getScheme())
                    && o.getHost() != null && o.getHost().equalsIgnoreCase(base.getHost())
                    && port(o) == port(base);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
}
