package io.echomq.web.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.web.api.QueuesResource;
import jakarta.annotation.security.RolesAllowed;
import org.junit.jupiter.api.Test;

/**
 * Who may read a queue's shards, as {@link RolesAllowedFilter} decides it on every server: whoever
 * may read the queue's counts (submitters and admins), since the shards are those counts, split.
 */
class QueueShardsRolesTest {

    @Test
    void whoeverMayReadAQueuesCountsMayReadItsShards() throws NoSuchMethodException {
        RolesAllowed shards = RolesAllowedFilter.ruleFor(QueuesResource.class.getMethod("shards", String.class), QueuesResource.class);
        RolesAllowed counts = RolesAllowedFilter.ruleFor(QueuesResource.class.getMethod("one", String.class), QueuesResource.class);

        assertThat(shards.value()).containsExactlyInAnyOrder(counts.value()).containsExactlyInAnyOrder(Roles.SUBMITTER, Roles.ADMIN);
    }
}
