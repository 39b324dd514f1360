package io.echomq.web.security;

import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.SecurityContext;
import io.echomq.runtime.ConfigReader;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * The configured OpenID Connect provider ({@link OidcSettings}), when there is one: its
 * metadata, read from {@code <issuer>/.well-known/openid-configuration} at first use (so the
 * application starts while the provider is down, and reads it again after a failed read), and
 * the validators of its access tokens (API audience) and ID tokens (the console's client).
 */
@ApplicationScoped
public class OidcProvider {

    private static final Logger LOG = Logger.getLogger(OidcProvider.class.getName());
    static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

    /** The endpoints the console and the API use, and the validators bound to the provider's keys. */
    record Metadata(URI authorizationEndpoint, URI tokenEndpoint, Optional<URI> endSessionEndpoint,
                    TokenValidator accessTokens, TokenValidator idTokens) {
    }

    @Inject
    Config config;

    private Optional<OidcSettings> settings = Optional.empty();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER).build();
    /** Written once by the first successful discovery (under this object's lock), read by any request thread. */
    private volatile Metadata metadata;

    /** Reads the settings as the application starts, so a bad provider setting fails the deployment. */
    @PostConstruct
    void load() {
        settings = OidcSettings.read(new ConfigReader(config));
        settings.ifPresent(s -> LOG.info("EchoMQ sign-in: OpenID Connect provider " + s.issuer() + ", client " + s.clientId()
                + ", roles from claim " + s.rolesClaim()));
    }

    public boolean configured() {
        return settings.isPresent();
    }

    public OidcSettings settings() {
        return settings.orElseThrow(() -> new IllegalStateException("no OpenID Connect provider is configured"));
    }

    HttpClient http() {
        return http;
    }

    /** The provider's metadata; read now if not yet read. */
    Metadata metadata() throws InvalidTokenException {
        Metadata known = metadata;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (metadata == null) {
                metadata = discover(settings());
            }
            return metadata;
        }
    }

    private Metadata discover(OidcSettings s) throws InvalidTokenException {
        URI wellKnown = URI.create(s.issuer() + "/.well-known/openid-configuration");
        JsonObject document;
        try {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(wellKnown).timeout(HTTP_TIMEOUT)
                    .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IOException("HTTP " + answer.statusCode());
            }
            try (JsonReader reader = Json.createReader(new StringReader(answer.body()))) {
                document = reader.readObject();
            }
        } catch (IOException | RuntimeException e) {
            LOG.warning("EchoMQ sign-in: cannot read the provider's metadata at " + wellKnown + ": " + e);
            throw new InvalidTokenException("the identity provider cannot be reached to check the token", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InvalidTokenException("interrupted while reading the identity provider's metadata", e);
        }
        // OpenID Connect Discovery 1.0 §4.3: the metadata must name exactly the configured issuer.
        if (!s.issuer().toString().equals(document.getString("issuer", ""))) {
            LOG.warning("EchoMQ sign-in: " + wellKnown + " names issuer '" + document.getString("issuer", "")
                    + "', not the configured " + s.issuer());
            throw new InvalidTokenException("the identity provider's metadata names another issuer");
        }
        JWKSource<SecurityContext> keys;
        try {
            keys = JWKSourceBuilder.create(URI.create(document.getString("jwks_uri")).toURL()).retrying(true).build();
        } catch (MalformedURLException | RuntimeException e) {
            throw new InvalidTokenException("the identity provider's metadata has no usable jwks_uri", e);
        }
        return new Metadata(
                URI.create(document.getString("authorization_endpoint")),
                URI.create(document.getString("token_endpoint")),
                Optional.ofNullable(document.getString("end_session_endpoint", null)).map(URI::create),
                new TokenValidator(keys, s.issuer(), s.audience(), s.clockSkew()),
                new TokenValidator(keys, s.issuer(), s.clientId(), s.clockSkew()));
    }
}
