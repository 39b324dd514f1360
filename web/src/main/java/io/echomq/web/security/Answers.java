package io.echomq.web.security;

import jakarta.json.Json;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The answers the authentication mechanism writes itself: 401 and 429 with a problem body,
 * and redirects. Each is complete when the mechanism returns ({@code SEND_CONTINUE}): the
 * request's body read, the response closed. Liberty sends only an answer already committed
 * (an uncommitted one, even after {@code sendError(401)}, becomes a 403 with an empty body).
 * WildFly (Undertow) follows a refused authentication whose status is 400 or more with its own
 * {@code sendError(401)} unless the exchange is complete; on a committed but unfinished answer
 * that call throws, and WildFly 39 logged {@code ERROR UT005023 … UT010019: Response already
 * commited} for every 401.
 */
final class Answers {

    /** The same body the container's own 401 error page carries (web.xml). */
    static final String PROBLEM_401 = "/WEB-INF/problems/401.problem";

    private Answers() {
    }

    /** 401 with the standard problem body and one {@code WWW-Authenticate} header per challenge. */
    static AuthenticationStatus unauthorized(HttpServletRequest request, HttpServletResponse response, List<String> challenges) {
        try (InputStream body = request.getServletContext().getResourceAsStream(PROBLEM_401)) {
            return problem(request, response, HttpServletResponse.SC_UNAUTHORIZED, challenges,
                    body == null ? new byte[0] : body.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot answer 401", e);
        }
    }

    /** 401 for a bearer token that is not accepted (RFC 6750 §3.1), saying why. */
    static AuthenticationStatus invalidToken(HttpServletRequest request, HttpServletResponse response, String reason) {
        String challenge = "Bearer realm=\"" + EchoMqAuthentication.REALM + "\", error=\"invalid_token\", error_description=\""
                + reason.replace('"', '\'') + "\"";
        return problem(request, response, HttpServletResponse.SC_UNAUTHORIZED, List.of(challenge),
                body(401, "Unauthorized", "invalid bearer token: " + reason));
    }

    /** 429: too many failed sign-ins; the caller may try again after {@code wait}. */
    static AuthenticationStatus tooManyFailures(HttpServletRequest request, HttpServletResponse response, Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        response.setHeader("Retry-After", Long.toString(seconds));
        return problem(request, response, 429, List.of(), body(429, "Too Many Requests",
                "too many failed sign-ins for this user or from this address: try again in " + seconds + " s"));
    }

    /** 303 to {@code location} (a path of this application, or the provider's URL). */
    static AuthenticationStatus seeOther(HttpServletRequest request, HttpServletResponse response, String location) {
        try {
            request.getInputStream().transferTo(OutputStream.nullOutputStream());
            response.setStatus(HttpServletResponse.SC_SEE_OTHER);
            response.setHeader("Location", location);
            response.setHeader("Cache-Control", "no-store");
            response.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot redirect", e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }

    private static byte[] body(int status, String title, String detail) {
        return Json.createObjectBuilder().add("type", "about:blank").add("title", title).add("status", status)
                .add("detail", detail).build().toString().getBytes(StandardCharsets.UTF_8);
    }

    private static AuthenticationStatus problem(HttpServletRequest request, HttpServletResponse response, int status,
                                                List<String> challenges, byte[] body) {
        try {
            // The refused request's body is read to its end (discarded, never held), so that
            // closing the answer below completes the whole exchange.
            request.getInputStream().transferTo(OutputStream.nullOutputStream());
            response.setStatus(status);
            challenges.forEach(challenge -> response.addHeader("WWW-Authenticate", challenge));
            response.setHeader("Cache-Control", "no-store");
            response.setContentType("application/problem+json");
            try (OutputStream out = response.getOutputStream()) {
                out.write(body);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot answer " + status, e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }
}
