package io.echomq.web.security;

import com.nimbusds.jwt.JWTClaimsSet;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.Serializable;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The console's sign-in at the OpenID Connect provider: the authorization code flow with
 * {@code state}, {@code nonce} and PKCE (S256). {@link #start} sends the browser to the
 * provider; the provider sends it back to {@value #CALLBACK} with a code, which
 * {@link #finish} exchanges (with the client's secret, when it has one) for an ID token whose
 * signature, issuer, audience (the client), expiry and nonce are checked; the caller's roles
 * come from the configured claim of that token.
 */
@ApplicationScoped
public class OidcSignIn {

    private static final Logger LOG = Logger.getLogger(OidcSignIn.class.getName());
    /** Where the provider sends the browser back, under the application's context root. */
    public static final String CALLBACK = "/console/callback";
    private static final String PENDING = "io.echomq.security.oidc-pending";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A sign-in in flight, kept in the session between {@link #start} and {@link #finish}. */
    record Pending(String state, String nonce, String verifier) implements Serializable {
    }

    @Inject
    OidcProvider provider;

    /** The provider's authorization URL for a new sign-in; remembers its state in the session. */
    String start(HttpServletRequest request) throws InvalidTokenException {
        OidcProvider.Metadata metadata = provider.metadata();
        OidcSettings settings = provider.settings();
        Pending pending = new Pending(random(), random(), random());
        ConsoleSession.put(request, PENDING, pending);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("response_type", "code");
        query.put("client_id", settings.clientId());
        query.put("redirect_uri", redirectUri(request).toString());
        query.put("scope", settings.scopes().contains("openid") ? settings.scopes() : "openid " + settings.scopes());
        query.put("state", pending.state());
        query.put("nonce", pending.nonce());
        query.put("code_challenge", s256(pending.verifier()));
        query.put("code_challenge_method", "S256");
        String endpoint = metadata.authorizationEndpoint().toString();
        return endpoint + (endpoint.contains("?") ? "&" : "?") + form(query);
    }

    /** Checks the provider's answer at {@value #CALLBACK} and returns who signed in. */
    SignedIn finish(HttpServletRequest request) throws InvalidTokenException {
        Pending pending = ConsoleSession.take(request, PENDING).filter(Pending.class::isInstance).map(Pending.class::cast)
                .orElseThrow(() -> new InvalidTokenException("no sign-in was started in this browser session"));
        if (request.getParameter("error") != null) {
            throw new InvalidTokenException("the identity provider refused the sign-in: " + request.getParameter("error"));
        }
        String state = request.getParameter("state");
        String code = request.getParameter("code");
        if (state == null || code == null || !MessageDigest.isEqual(state.getBytes(StandardCharsets.US_ASCII),
                pending.state().getBytes(StandardCharsets.US_ASCII))) {
            throw new InvalidTokenException("the sign-in answer does not belong to this browser session (state)");
        }
        OidcProvider.Metadata metadata = provider.metadata();
        String idToken = exchange(metadata.tokenEndpoint(), code, pending.verifier(), redirectUri(request));
        JWTClaimsSet claims = metadata.idTokens().validate(idToken);
        Object nonce = claims.getClaim("nonce");
        if (!pending.nonce().equals(nonce)) {
            throw new InvalidTokenException("the ID token was not issued for this sign-in (nonce)");
        }
        return new SignedIn(callerName(claims, provider.settings()), RoleClaim.rolesOf(claims, provider.settings()), idToken);
    }

    /** Where the provider should send the browser after signing out there, or empty when it has no end-session endpoint. */
    Optional<String> endSessionUrl(HttpServletRequest request, SignedIn caller) {
        try {
            return provider.metadata().endSessionEndpoint().map(endpoint -> {
                Map<String, String> query = new LinkedHashMap<>();
                query.put("client_id", provider.settings().clientId());
                query.put("post_logout_redirect_uri", applicationBase(request) + "/console/");
                if (caller.idToken() != null) {
                    query.put("id_token_hint", caller.idToken());
                }
                String url = endpoint.toString();
                return url + (url.contains("?") ? "&" : "?") + form(query);
            });
        } catch (InvalidTokenException unreachable) {
            return Optional.empty();
        }
    }

    static String callerName(JWTClaimsSet claims, OidcSettings settings) {
        Object name = claims.getClaim(settings.nameClaim());
        return name instanceof String text && !text.isBlank() ? text : claims.getSubject();
    }

    private String exchange(URI tokenEndpoint, String code, String verifier, URI redirectUri) throws InvalidTokenException {
        OidcSettings settings = provider.settings();
        Map<String, String> body = new LinkedHashMap<>();
        body.put("grant_type", "authorization_code");
        body.put("code", code);
        body.put("redirect_uri", redirectUri.toString());
        body.put("code_verifier", verifier);
        HttpRequest.Builder post = HttpRequest.newBuilder(tokenEndpoint).timeout(OidcProvider.HTTP_TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json");
        if (settings.clientSecret().isPresent()) {
            // client_secret_basic (RFC 6749 §2.3.1): both halves form-encoded before Base64.
            String pair = enc(settings.clientId()) + ":" + enc(settings.clientSecret().get());
            post.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        } else {
            body.put("client_id", settings.clientId());
        }
        try {
            HttpResponse<String> answer = provider.http().send(post.POST(HttpRequest.BodyPublishers.ofString(form(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonObject tokens;
            try (JsonReader reader = Json.createReader(new StringReader(answer.body()))) {
                tokens = reader.readObject();
            }
            if (answer.statusCode() != 200 || !tokens.containsKey("id_token")) {
                LOG.warning("EchoMQ sign-in: the token endpoint answered HTTP " + answer.statusCode() + " "
                        + tokens.getString("error", "") + " " + tokens.getString("error_description", ""));
                throw new InvalidTokenException("the identity provider did not issue an ID token for the code");
            }
            return tokens.getString("id_token");
        } catch (IOException | RuntimeException e) {
            throw new InvalidTokenException("the identity provider's token endpoint cannot be reached", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InvalidTokenException("interrupted while exchanging the code", e);
        }
    }

    private URI redirectUri(HttpServletRequest request) {
        return provider.settings().redirectUri().orElseGet(() -> URI.create(applicationBase(request) + CALLBACK));
    }

    /** scheme://host:port/context-root as the browser addressed this application. */
    static String applicationBase(HttpServletRequest request) {
        StringBuffer url = request.getRequestURL();
        String path = URI.create(url.toString()).getRawPath();
        return url.substring(0, url.length() - path.length()) + request.getContextPath();
    }

    private static String random() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String s256(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    private static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue())).collect(Collectors.joining("&"));
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
