package io.echomq.testkit.services;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Whether the JVM runs as root. It matters because PostgreSQL's initdb and postmaster refuse to
 * run as root, which CI containers often are.
 */
public final class CurrentUser {

    private static volatile Boolean root;

    private CurrentUser() {
    }

    public static boolean isRoot() {
        Boolean known = root;
        if (known == null) {
            known = "root".equals(System.getProperty("user.name")) || "0".equals(numericId());
            root = known;
        }
        return known;
    }

    private static String numericId() {
        try {
            Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return id.waitFor() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
