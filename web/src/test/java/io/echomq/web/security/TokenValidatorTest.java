package io.echomq.web.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a bearer token must be to be accepted: signed by one of the issuer's keys with an
 * asymmetric algorithm, from that issuer, for the API's audience, unexpired; and which EchoMQ
 * roles its claim gives. (Against a real provider, Keycloak, on every server: the ITs' sign-in checks.)
 */
class TokenValidatorTest {

    private static final URI ISSUER = URI.create("https://idp.example.test/realms/echomq");
    private static final RSAKey KEY = rsaKey("issuer-key");
    private static final RSAKey FOREIGN_KEY = rsaKey("issuer-key");

    private final TokenValidator validator = new TokenValidator(new ImmutableJWKSet<>(new JWKSet(KEY.toPublicJWK())), ISSUER,
            "echomq-api", Duration.ZERO);

    @Test
    void aTokenSignedByTheIssuerForTheApiIsAcceptedWithItsClaims() throws Exception {
        JWTClaimsSet claims = validator.validate(sign(KEY, claims().build()));

        assertThat(claims.getSubject()).isEqualTo("machine-1");
        assertThat(claims.getStringListClaim("roles")).containsExactly("submitter");
    }

    @Test
    void anExpiredTokenIsRefusedAsExpired() {
        String expired = sign(KEY, claims().expirationTime(Date.from(Instant.now().minusSeconds(5))).build());

        assertThatThrownBy(() -> validator.validate(expired)).isInstanceOf(InvalidTokenException.class)
                .hasMessage("the token has expired");
    }

    @Test
    void aTokenOfAnotherIssuerOrAudienceOrKeyIsRefused() {
        assertThatThrownBy(() -> validator.validate(sign(KEY, claims().issuer("https://idp.example.test/realms/other").build())))
                .hasMessage("the token was issued by another issuer");
        assertThatThrownBy(() -> validator.validate(sign(KEY, claims().audience("account").build())))
                .hasMessage("the token is not meant for this API (audience)");
        assertThatThrownBy(() -> validator.validate(sign(FOREIGN_KEY, claims().build())))
                .as("same key id, other key").hasMessage("the token's signature does not verify with the issuer's keys");
    }

    @Test
    void unsignedAndSharedSecretTokensAreRefused() throws Exception {
        SignedJWT hmac = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims().build());
        hmac.sign(new MACSigner(new byte[32]));

        assertThatThrownBy(() -> validator.validate(new PlainJWT(claims().build()).serialize())).isInstanceOf(InvalidTokenException.class);
        assertThatThrownBy(() -> validator.validate(hmac.serialize())).isInstanceOf(InvalidTokenException.class);
        assertThatThrownBy(() -> validator.validate("not-a-jwt")).hasMessage("the token is not a signed JWT");
    }

    @Test
    void theRolesClaimMapsToEchoMqRolesWithAdminImplyingSubmitter() {
        OidcSettings keycloakNested = settings("realm_access.roles", Set.of("queue-admins"), Set.of("queue-users"));
        JWTClaimsSet nested = claims().claim("realm_access", Map.of("roles", List.of("offline_access", "queue-admins"))).build();
        OidcSettings entraStyle = settings("roles", Set.of("EchoMQ.Admin"), Set.of("EchoMQ.Submit"));
        JWTClaimsSet flat = claims().claim("roles", List.of("EchoMQ.Submit")).build();
        JWTClaimsSet spaced = claims().claim("roles", "openid EchoMQ.Admin").build();

        assertThat(RoleClaim.rolesOf(nested, keycloakNested)).containsExactlyInAnyOrder(Roles.ADMIN, Roles.SUBMITTER);
        assertThat(RoleClaim.rolesOf(flat, entraStyle)).containsExactly(Roles.SUBMITTER);
        assertThat(RoleClaim.rolesOf(spaced, entraStyle)).containsExactlyInAnyOrder(Roles.ADMIN, Roles.SUBMITTER);
        assertThat(RoleClaim.rolesOf(flat, keycloakNested)).as("no claim at the path").isEmpty();
    }

    private static OidcSettings settings(String claim, Set<String> admin, Set<String> submitter) {
        return new OidcSettings(ISSUER, "echomq-console", Optional.empty(), "echomq-api", claim, admin, submitter,
                "preferred_username", "openid", Optional.empty(), Duration.ZERO);
    }

    private static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder().issuer(ISSUER.toString()).subject("machine-1").audience("echomq-api")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).claim("roles", List.of("submitter"));
    }

    private static String sign(RSAKey key, JWTClaimsSet claims) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RSAKey rsaKey(String id) {
        try {
            return new RSAKeyGenerator(2048).keyID(id).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }
}
