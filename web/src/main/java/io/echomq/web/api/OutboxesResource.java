package io.echomq.web.api;

import io.echomq.queue.OutboxGauge;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;

/**
 * The resource adapters' outboxes, as their relays last reported them to Valkey (every sweep,
 * about twice a second): rows waiting to be relayed and the oldest one's age, per data source.
 * An outbox no relay swept for a few intervals is not listed.
 */
@Path("outboxes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class OutboxesResource {

    public record OutboxView(String dataSource, long depth, long oldestAgeMs, Instant reportedAt) {

        static OutboxView of(OutboxGauge gauge) {
            return new OutboxView(gauge.source(), gauge.depth(), gauge.oldestAgeMs(), Instant.ofEpochMilli(gauge.updatedAtMs()));
        }
    }

    @Inject
    EchoMqEngine engine;

    @GET
    public List<OutboxView> all() {
        return engine.queue().outboxes().stream().map(OutboxView::of).toList();
    }
}
