package io.echomq.web;

import io.echomq.web.security.PasswordHashTool;
import java.util.HashMap;
import java.util.Map;

/**
 * The users the end-to-end tests log in as, configured the way an operator would: names,
 * PBKDF2 hashes and roles in environment variables (no dev mode).
 */
public final class E2eUsers {

    public static final String ADMIN = "ops";
    public static final String ADMIN_PASSWORD = "ops-password-for-tests";
    public static final String SUBMITTER = "alice";
    public static final String SUBMITTER_PASSWORD = "alice-password-for-tests";

    private E2eUsers() {
    }

    public static Map<String, String> environment() {
        try {
            Map<String, String> env = new HashMap<>();
            env.put("ECHOMQ_DEV_MODE", "false");
            // Production-like, with the demo asked for: the end-to-end checks count its ledger.
            env.put("ECHOMQ_DEMO_ENABLED", "true");
            env.put("ECHOMQ_SECURITY_USERS", ADMIN + "," + SUBMITTER);
            env.put("ECHOMQ_SECURITY_USER_OPS_PASSWORD_HASH", PasswordHashTool.hash(ADMIN_PASSWORD.toCharArray()));
            env.put("ECHOMQ_SECURITY_USER_OPS_ROLES", "admin");
            env.put("ECHOMQ_SECURITY_USER_ALICE_PASSWORD_HASH", PasswordHashTool.hash(SUBMITTER_PASSWORD.toCharArray()));
            env.put("ECHOMQ_SECURITY_USER_ALICE_ROLES", "submitter");
            return env;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
