package io.echomq.web.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.io.Serializable;
import java.util.Optional;

/**
 * The console's sign-in, kept in the container's HTTP session (cookie settings in web.xml:
 * HttpOnly, SameSite=Lax). A sign-in starts a new session, so an id planted before it
 * (session fixation) is worth nothing; signing out invalidates it.
 */
final class ConsoleSession {

    private static final String SIGNED_IN = "io.echomq.security.signed-in";

    private ConsoleSession() {
    }

    static void begin(HttpServletRequest request, SignedIn caller) {
        HttpSession old = request.getSession(false);
        if (old != null) {
            old.invalidate();
        }
        request.getSession(true).setAttribute(SIGNED_IN, caller);
    }

    static Optional<SignedIn> current(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (session == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable((SignedIn) session.getAttribute(SIGNED_IN));
        } catch (IllegalStateException invalidated) {
            return Optional.empty();
        }
    }

    /** Ends the session; returns who was signed in, if anyone was. */
    static Optional<SignedIn> end(HttpServletRequest request) {
        Optional<SignedIn> caller = current(request);
        HttpSession session = request.getSession(false);
        if (session != null) {
            try {
                session.invalidate();
            } catch (IllegalStateException alreadyInvalidated) {
                // nothing left to end
            }
        }
        return caller;
    }

    /** A short-lived value of the session (an OpenID Connect sign-in in flight), in its own attribute. */
    static void put(HttpServletRequest request, String name, Serializable value) {
        request.getSession(true).setAttribute(name, value);
    }

    static Optional<Object> take(HttpServletRequest request, String name) {
        HttpSession session = request.getSession(false);
        if (session == null) {
            return Optional.empty();
        }
        Object value = session.getAttribute(name);
        session.removeAttribute(name);
        return Optional.ofNullable(value);
    }
}
