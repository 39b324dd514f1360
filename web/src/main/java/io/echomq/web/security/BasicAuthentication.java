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
import java.io.OutputStream;
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
 * <p>The answer is complete when the mechanism returns: the request's body read, the response
 * closed. Liberty sends only an answer already committed (an uncommitted one, even after
 * {@code sendError(401)}, becomes a 403 with an empty body). WildFly (Undertow) follows a
 * refused authentication whose status is 400 or more with its own {@code sendError(401)}
 * unless the exchange is complete; on a committed but unfinished answer that call throws, and
 * WildFly 39 logged {@code ERROR UT005023 … UT010019: Response already commited} for every 401.
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
            // The refused request's body is read to its end (discarded, never held), so that
            // closing the answer below completes the whole exchange.
            request.getInputStream().transferTo(OutputStream.nullOutputStream());
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\"");
            response.setHeader("Cache-Control", "no-store");
            response.setContentType("application/problem+json");
            try (OutputStream out = response.getOutputStream()) {
                if (body != null) {
                    out.write(body.readAllBytes());
                }
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
