package io.echomq.web.security;

import java.io.Console;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.InvalidKeySpecException;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Prints the PBKDF2 hash of a password in the form Jakarta Security's {@code Pbkdf2PasswordHash}
 * verifies ({@code algorithm:iterations:salt:hash}, Base64), for
 * {@code echomq.security.user.<name>.password-hash}. Reads the password from the console (or
 * the first line of standard input), never from the command line, so it stays out of shell
 * history and process lists.
 */
public final class PasswordHashTool {

    static final String ALGORITHM = "PBKDF2WithHmacSHA256";
    static final int ITERATIONS = 210_000;
    private static final int SALT_BYTES = 32;
    private static final int KEY_BITS = 256;

    private PasswordHashTool() {
    }

    public static void main(String[] args) throws Exception {
        Console console = System.console();
        char[] password;
        if (console != null) {
            password = console.readPassword("password: ");
        } else {
            password = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("").toCharArray();
        }
        if (password == null || password.length < 12) {
            System.err.println("a password of at least 12 characters is required");
            System.exit(2);
        }
        System.out.println(hash(password));
    }

    public static String hash(char[] password) throws NoSuchAlgorithmException, InvalidKeySpecException {
        byte[] salt = new byte[SALT_BYTES];
        new SecureRandom().nextBytes(salt);
        byte[] key = SecretKeyFactory.getInstance(ALGORITHM)
                .generateSecret(new PBEKeySpec(password, salt, ITERATIONS, KEY_BITS)).getEncoded();
        Base64.Encoder base64 = Base64.getEncoder();
        return ALGORITHM + ":" + ITERATIONS + ":" + base64.encodeToString(salt) + ":" + base64.encodeToString(key);
    }
}
