package io.echomq.web.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.web.api.OutboxesResource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Who may steer an outbox's dead rows, as {@link RolesAllowedFilter} decides it on every server:
 * the resource's class lets submitters read, so each command must carry an admin-only rule of its
 * own. (The answers themselves, 403 to a submitter, are checked on live servers by the ITs'
 * {@code AuthChecks}.)
 */
class OutboxCommandRolesTest {

    @Test
    void onlyAdminsMayRetryOrDropADeadOutboxRow() {
        List<Method> commands = Arrays.stream(OutboxesResource.class.getMethods()).filter(m -> m.isAnnotationPresent(POST.class)).toList();

        assertThat(commands).extracting(Method::getName).containsExactlyInAnyOrder("retry", "drop");
        for (Method command : commands) {
            RolesAllowed rule = RolesAllowedFilter.ruleFor(command, OutboxesResource.class);
            assertThat(rule).as(command.getName()).isNotNull();
            assertThat(rule.value()).as(command.getName()).containsExactly(Roles.ADMIN);
        }
    }

    @Test
    void submittersMayReadTheOutboxesAndTheirDeadRows() throws NoSuchMethodException {
        RolesAllowed rule = RolesAllowedFilter.ruleFor(OutboxesResource.class.getMethod("all"), OutboxesResource.class);

        assertThat(rule.value()).containsExactlyInAnyOrder(Roles.SUBMITTER, Roles.ADMIN);
    }
}
