package io.echomq.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * CSRF tokens for the console: an HMAC of the user name under a key made at start, so a token
 * is valid for its user only, needs no server-side storage, and ends with the deployment.
 */
@ApplicationScoped
public class CsrfTokens {

    private final byte[] key = new byte[32];

    public CsrfTokens() {
        new SecureRandom().nextBytes(key);
    }

    public String tokenFor(String user) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(user.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
        }
    }

    public boolean isValid(String user, String token) {
        return token != null && MessageDigest.isEqual(tokenFor(user).getBytes(StandardCharsets.US_ASCII),
                token.getBytes(StandardCharsets.US_ASCII));
    }
}
