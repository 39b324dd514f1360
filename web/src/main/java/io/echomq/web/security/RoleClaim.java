package io.echomq.web.security;

import com.nimbusds.jwt.JWTClaimsSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Turns the roles claim of a provider's token into EchoMQ roles: the claim's values named in
 * {@code admin-roles} give {@code admin} (which implies {@code submitter}), those in
 * {@code submitter-roles} give {@code submitter}, every other value is ignored. The claim is a
 * dotted path ({@code realm_access.roles} reads Keycloak's nested realm roles), its value a list
 * of strings or one string of values separated by spaces.
 */
final class RoleClaim {

    private RoleClaim() {
    }

    static Set<String> rolesOf(JWTClaimsSet claims, OidcSettings settings) {
        Set<String> values = values(claims.getClaims(), settings.rolesClaim());
        Set<String> roles = new HashSet<>();
        if (values.stream().anyMatch(settings.adminValues()::contains)) {
            roles.add(Roles.ADMIN);
            roles.add(Roles.SUBMITTER);
        }
        if (values.stream().anyMatch(settings.submitterValues()::contains)) {
            roles.add(Roles.SUBMITTER);
        }
        return Set.copyOf(roles);
    }

    private static Set<String> values(Map<String, Object> claims, String path) {
        Object node = claims;
        for (String step : path.split("\\.")) {
            if (!(node instanceof Map<?, ?> map)) {
                return Set.of();
            }
            node = map.get(step);
        }
        Set<String> values = new HashSet<>();
        if (node instanceof Collection<?> list) {
            list.forEach(value -> values.add(String.valueOf(value)));
        } else if (node instanceof String text) {
            values.addAll(java.util.Arrays.asList(text.trim().split("\\s+")));
        }
        return values;
    }
}
