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
        if (!fromThisSite(origin, fetchSite, request.getUriInfo().getBaseUri())) {
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

    /**
     * Whether a browser's request came from a page of this site, by its {@code Origin} and
     * {@code Sec-Fetch-Site} headers (either may be absent, never both for a forgery); also
     * asked of the login form, so another site cannot sign a browser in as someone else.
     */
    static boolean fromThisSite(String origin, String fetchSite, URI base) {
        // "null": a browser hides the origin of a form's POST when the page's referrer policy is
        // no-referrer (the console's); Sec-Fetch-Site then tells, and without it nothing does.
        boolean originAllows = origin == null || (origin.equals("null") ? fetchSite != null : sameOrigin(origin, base));
        return originAllows && (fetchSite == null || fetchSite.equals("same-origin") || fetchSite.equals("none"));
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
