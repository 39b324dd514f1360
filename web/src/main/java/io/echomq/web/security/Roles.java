package io.echomq.web.security;

/** The two roles: submitters submit and read; admins also steer (cancel, retry, pause) and use the console. */
public final class Roles {

    public static final String SUBMITTER = "submitter";
    public static final String ADMIN = "admin";

    private Roles() {
    }
}
