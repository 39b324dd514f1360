package io.echomq.web.security;

import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How EchoMQ trusts an OpenID Connect provider, from MicroProfile Config. Setting
 * {@code echomq.security.oidc.issuer} turns it on: the console then signs in at the provider
 * and the API accepts the provider's bearer tokens; unset, the console has its own login page.
 *
 * @param issuer         the provider's issuer URL; its {@code /.well-known/openid-configuration} is read
 * @param clientId       the console's client at the provider (authorization code flow)
 * @param clientSecret   that client's secret; empty for a public client (PKCE only)
 * @param audience       the {@code aud} an API bearer token must carry
 * @param rolesClaim     the claim that carries the roles, a dotted path for nested claims
 *                       ({@code realm_access.roles})
 * @param adminValues    values of the roles claim that make a caller {@code admin}
 * @param submitterValues values of the roles claim that make a caller {@code submitter}
 * @param nameClaim      the claim shown as the caller's name; {@code sub} when a token lacks it
 * @param scopes         the scopes the console asks for
 * @param redirectUri    where the provider sends the browser back; empty to derive it from the request
 * @param clockSkew      the tolerance for {@code exp} and {@code nbf}
 */
public record OidcSettings(URI issuer, String clientId, Optional<String> clientSecret, String audience, String rolesClaim,
                           Set<String> adminValues, Set<String> submitterValues, String nameClaim, String scopes,
                           Optional<URI> redirectUri, Duration clockSkew) {

    static final String PREFIX = "echomq.security.oidc.";

    /** The provider's settings, or empty when no issuer is configured. */
    public static Optional<OidcSettings> read(ConfigReader read) {
        Optional<String> issuer = read.optional(PREFIX + "issuer");
        if (issuer.isEmpty()) {
            return Optional.empty();
        }
        String clientId = read.required(PREFIX + "client-id", "the console's client id at the identity provider");
        return Optional.of(new OidcSettings(
                httpUri(PREFIX + "issuer", issuer.get().replaceAll("/+$", "")),
                clientId,
                read.optional(PREFIX + "client-secret"),
                read.optional(PREFIX + "audience").orElse(clientId),
                read.optional(PREFIX + "roles-claim").orElse("roles"),
                values(read, PREFIX + "admin-roles", Roles.ADMIN),
                values(read, PREFIX + "submitter-roles", Roles.SUBMITTER),
                read.optional(PREFIX + "name-claim").orElse("preferred_username"),
                read.optional(PREFIX + "scopes").orElse("openid profile"),
                read.optional(PREFIX + "redirect-uri").map(uri -> httpUri(PREFIX + "redirect-uri", uri)),
                Duration.ofSeconds(read.number(PREFIX + "clock-skew-seconds", 30, 0, 300))));
    }

    private static Set<String> values(ConfigReader read, String key, String fallback) {
        List<String> values = read.list(key);
        return Set.copyOf(values.isEmpty() ? List.of(fallback) : values);
    }

    private static URI httpUri(String key, String value) {
        try {
            URI uri = URI.create(value);
            if (uri.getHost() != null && ("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
                return uri;
            }
        } catch (IllegalArgumentException malformed) {
            // reported below, with the key
        }
        throw new ConfigurationException(key, "must be an absolute http(s) URL, was '" + value + "'");
    }
}
