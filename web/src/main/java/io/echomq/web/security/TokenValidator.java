package io.echomq.web.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.URI;
import java.text.ParseException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Checks a JWT from the provider: its signature against the provider's published keys (JWKS,
 * fetched and cached by Nimbus, refetched when a token names a key it has not seen), the
 * issuer exactly, the audience, and the expiry (required) within the clock skew. Only
 * asymmetric signatures are accepted, so a token signed with a shared secret (or none) fails.
 */
final class TokenValidator {

    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512, JWSAlgorithm.ES256, JWSAlgorithm.ES384,
            JWSAlgorithm.ES512, JWSAlgorithm.EdDSA);

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    /**
     * @param audience the {@code aud} a token must contain; null to accept any audience
     */
    TokenValidator(JWKSource<SecurityContext> keys, URI issuer, String audience, Duration clockSkew) {
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
        // Mutable sets on purpose: Nimbus asks them contains(null), which Set.of answers with an exception.
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(
                audience == null ? null : new HashSet<>(Set.of(audience)),
                new JWTClaimsSet.Builder().issuer(issuer.toString()).build(),
                new HashSet<>(Set.of("exp", "sub")), null);
        claims.setMaxClockSkew(Math.toIntExact(clockSkew.toSeconds()));
        processor.setJWTClaimsSetVerifier(claims);
    }

    JWTClaimsSet validate(String token) throws InvalidTokenException {
        try {
            return processor.process(token, null);
        } catch (ParseException e) {
            throw new InvalidTokenException("the token is not a signed JWT");
        } catch (BadJWTException e) {
            throw new InvalidTokenException(reason(e.getMessage()));
        } catch (BadJOSEException e) {
            throw new InvalidTokenException("the token's signature does not verify with the issuer's keys");
        } catch (JOSEException e) {
            throw new InvalidTokenException("the token cannot be checked now: the issuer's keys are unavailable", e);
        }
    }

    /** Nimbus's claim messages ("Expired JWT", "JWT iss claim has value …") in the caller's words. */
    private static String reason(String nimbus) {
        String message = nimbus == null ? "" : nimbus;
        if (message.startsWith("Expired")) {
            return "the token has expired";
        }
        if (message.contains("iss")) {
            return "the token was issued by another issuer";
        }
        if (message.contains("aud")) {
            return "the token is not meant for this API (audience)";
        }
        if (message.contains("before use time") || message.contains("nbf")) {
            return "the token is not valid yet";
        }
        return "the token's claims are not accepted: " + message.replaceAll("[^\\x20-\\x7E]", "?");
    }
}
