package io.echomq.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * HTTP Basic through Jakarta Security, answering a missing or wrong login with 401, a
 * {@code WWW-Authenticate} challenge and the problem body on every server.
 *
 * <p>Why not {@code @BasicAuthenticationMechanismDefinition}: its mechanism ends a refused login
 * with {@code SEND_FAILURE} and leaves the answer to the server, and servers differ: Payara and
 * WildFly answer 401 (with the WAR's 401 error page), Open Liberty 403 with an empty body. This
 * mechanism writes the whole answer itself and returns {@code SEND_CONTINUE}, which every server
 * sends as written. The credentials are checked by the application's identity store
 * ({@link EchoMqIdentityStore}) through the container's {@link IdentityStoreHandler}.
 *
 * <p>The answer stays in the response buffer, uncommitted: WildFly (Undertow) follows a refused
 * authentication whose status is 400 or more with its own {@code sendError(401)}, which serves
 * the web.xml error page, the same body. A committed (flushed) answer makes that call throw,
 * and WildFly 39 logs an {@code ERROR} ("UT010019: Response already commited") for every 401.
 */
@ApplicationScoped
public class BasicAuthentication implements HttpAuthenticationMechanism {

    static final String REALM = "EchoMQ";
    /** The same body the container's own 401 error page carries (web.xml). */
    static final String PROBLEM = "/WEB-INF/problems/401.problem";

    @Inject
    IdentityStoreHandler identityStores;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        Optional<UsernamePasswordCredential> credential = credential(request.getHeader("Authorization"));
        if (credential.isPresent()) {
            CredentialValidationResult result = identityStores.validate(credential.get());
            if (result.getStatus() == CredentialValidationResult.Status.VALID) {
                return context.notifyContainerAboutLogin(result);
            }
            return refuse(request, response);
        }
        return context.isProtected() ? refuse(request, response) : context.doNothing();
    }

    private static AuthenticationStatus refuse(HttpServletRequest request, HttpServletResponse response) {
        try (InputStream body = request.getServletContext().getResourceAsStream(PROBLEM)) {
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\"");
            response.setHeader("Cache-Control", "no-store");
            response.setContentType("application/problem+json");
            if (body != null) {
                // Far below any server's buffer size: written, not yet sent (see the class comment).
                response.getOutputStream().write(body.readAllBytes());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot answer 401", e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }

    /** The user and password of an {@code Authorization: Basic ...} header; empty when absent or malformed. */
    static Optional<UsernamePasswordCredential> credential(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        try {
            String pair = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            return colon < 0 ? Optional.empty()
                    : Optional.of(new UsernamePasswordCredential(pair.substring(0, colon), pair.substring(colon + 1)));
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }
}
