package io.echomq.web.security;

import java.util.Set;

/** A user who may call the API: name, a PBKDF2 password hash, and roles. */
record User(String name, String passwordHash, Set<String> roles) {

    @Override
    public String toString() {
        return "User[" + name + ", roles=" + roles + "]";
    }
}
