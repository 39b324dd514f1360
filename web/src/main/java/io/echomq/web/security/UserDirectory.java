package io.echomq.web.security;

import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.security.enterprise.identitystore.Pbkdf2PasswordHash;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * The users who may call the API, from configuration: {@code echomq.security.users} names them,
 * and for each name {@code echomq.security.user.<name>.password-hash} (a PBKDF2 hash, see
 * {@link PasswordHashTool}) and {@code echomq.security.user.<name>.roles} ({@code admin},
 * {@code submitter}). There is no default password: in dev mode ({@code echomq.dev-mode=true})
 * and only then, users {@code admin} and {@code submitter} get generated passwords, printed once
 * at start.
 */
@ApplicationScoped
public class UserDirectory {

    private static final Logger LOG = Logger.getLogger(UserDirectory.class.getName());
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Set<String> KNOWN_ROLES = Set.of(Roles.ADMIN, Roles.SUBMITTER);

    @Inject
    Config config;

    @Inject
    Pbkdf2PasswordHash hashes;

    private final Map<String, User> users = new HashMap<>();

    /** Reads the users as the application starts, so bad security settings fail the deployment. */
    void onStart(@Observes @Initialized(jakarta.enterprise.context.ApplicationScoped.class) Object started) {
        LOG.fine(() -> "EchoMQ users: " + users.keySet());
    }

    @PostConstruct
    void load() {
        ConfigReader read = new ConfigReader(config);
        for (String name : read.list("echomq.security.users")) {
            if (!NAME.matcher(name).matches()) {
                throw new ConfigurationException("echomq.security.users", "user name '" + name
                        + "' must be 1 to 64 letters, digits, '.', '_' or '-'");
            }
            String prefix = "echomq.security.user." + name + ".";
            String hash = read.required(prefix + "password-hash", "a PBKDF2 hash of the password (see the README: hashing a password)");
            Set<String> roles = new HashSet<>(read.list(prefix + "roles"));
            if (roles.isEmpty() || !KNOWN_ROLES.containsAll(roles)) {
                throw new ConfigurationException(prefix + "roles", "must list admin and/or submitter, was " + roles);
            }
            users.put(name, new User(name, hash, withImpliedRoles(roles)));
        }
        if (read.flag("echomq.dev-mode", false)) {
            addGeneratedDevUsers();
        } else if (users.isEmpty()) {
            LOG.warning("EchoMQ: no users are configured (echomq.security.users): every API call will be refused with 401");
        }
    }

    Optional<User> find(String name) {
        return Optional.ofNullable(users.get(name));
    }

    /** An admin may do all a submitter may. */
    private static Set<String> withImpliedRoles(Set<String> roles) {
        Set<String> all = new HashSet<>(roles);
        if (all.contains(Roles.ADMIN)) {
            all.add(Roles.SUBMITTER);
        }
        return Set.copyOf(all);
    }

    private void addGeneratedDevUsers() {
        String admin = generatedPassword();
        String submitter = generatedPassword();
        users.putIfAbsent("admin", new User("admin", hashes.generate(admin.toCharArray()), withImpliedRoles(Set.of(Roles.ADMIN))));
        users.putIfAbsent("submitter", new User("submitter", hashes.generate(submitter.toCharArray()), Set.of(Roles.SUBMITTER)));
        // Printed once, on purpose: dev mode exists so a newcomer can log in without set-up.
        LOG.warning("EchoMQ dev mode credentials: admin/" + admin + " submitter/" + submitter
                + " (dev mode only; configure echomq.security.users for real deployments)");
    }

    private static String generatedPassword() {
        final String alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        SecureRandom random = new SecureRandom();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            out.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return out.toString();
    }
}
