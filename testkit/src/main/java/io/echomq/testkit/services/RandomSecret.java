package io.echomq.testkit.services;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Passwords for servers we start and suffixes for database names: hex, so they need no quoting anywhere. */
public final class RandomSecret {

    private static final SecureRandom RANDOM = new SecureRandom();

    private RandomSecret() {
    }

    public static String hex(int bytes) {
        byte[] buffer = new byte[bytes];
        RANDOM.nextBytes(buffer);
        return HexFormat.of().formatHex(buffer);
    }
}
