package io.echomq.web.security;

import java.io.Serializable;
import java.util.Set;

/**
 * Who signed in to the console, kept in the HTTP session: the name and roles the container is
 * told on every request of the session, and, after an OpenID Connect sign-in, the ID token
 * that the provider's end-session endpoint asks for as a hint.
 *
 * @param idToken the provider's ID token, or null after a sign-in with the login page
 */
record SignedIn(String name, Set<String> roles, String idToken) implements Serializable {

    @Override
    public String toString() {
        return "SignedIn[" + name + ", roles=" + roles + "]";
    }
}
