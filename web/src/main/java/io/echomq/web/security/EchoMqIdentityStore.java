package io.echomq.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;
import jakarta.security.enterprise.identitystore.Pbkdf2PasswordHash;

/**
 * Checks API credentials against the {@link UserDirectory}; the user's roles become groups.
 * The mechanism that asks for them is {@link EchoMqAuthentication} (HTTP Basic and the login page).
 */
@ApplicationScoped
public class EchoMqIdentityStore implements IdentityStore {

    @Inject
    UserDirectory users;

    @Inject
    Pbkdf2PasswordHash hashes;

    public CredentialValidationResult validate(UsernamePasswordCredential credential) {
        return users.find(credential.getCaller())
                .filter(user -> verifies(credential, user))
                .map(user -> new CredentialValidationResult(user.name(), user.roles()))
                .orElse(CredentialValidationResult.INVALID_RESULT);
    }

    private boolean verifies(UsernamePasswordCredential credential, User user) {
        try {
            return hashes.verify(credential.getPassword().getValue(), user.passwordHash());
        } catch (RuntimeException malformedHash) {
            return false;
        }
    }
}
