package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.outbox.OutboxCommand;
import io.echomq.queue.outbox.OutboxDeadRow;
import io.echomq.queue.outbox.OutboxDeadRows;
import io.echomq.queue.outbox.OutboxGauge;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.Problem;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The resource adapters' outboxes, as their relays last reported them to Valkey (every sweep,
 * about twice a second): rows waiting to be relayed and the oldest one's age, per data source,
 * and the dead rows (refused by Valkey too many times) with their errors. An outbox no relay
 * swept for a few intervals is not listed.
 *
 * <p>An admin retries or drops a dead row by leaving the command in Valkey for the outbox's
 * relays (this WAR has no access to the applications' databases): the answer is 202, and a relay
 * carries the command out at its next sweep.
 */
@Path("outboxes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class OutboxesResource {

    private static final Logger LOG = Logger.getLogger(OutboxesResource.class.getName());

    /**
     * One outbox.
     *
     * @param depth    rows waiting to be relayed (dead rows wait for no relay and are not counted)
     * @param dead     dead rows, all of them
     * @param deadRows the oldest of them, at most 100
     */
    public record OutboxView(String dataSource, long depth, long oldestAgeMs, Instant reportedAt, long dead, List<DeadRowView> deadRows) {

        static OutboxView of(OutboxGauge gauge, Optional<OutboxDeadRows> dead) {
            return new OutboxView(gauge.source(), gauge.depth(), gauge.oldestAgeMs(), Instant.ofEpochMilli(gauge.updatedAtMs()),
                    dead.map(OutboxDeadRows::count).orElse(0L),
                    dead.map(report -> report.oldest().stream().map(row -> DeadRowView.of(row, report)).toList()).orElse(List.of()));
        }
    }

    /**
     * One dead row.
     *
     * @param requested the command an admin asked for and no relay carried out yet ({@code retry}, {@code drop}), or null
     */
    public record DeadRowView(long id, String queue, int refusals, String lastError, Instant createdAt, Instant deadAt, String requested) {

        static DeadRowView of(OutboxDeadRow row, OutboxDeadRows report) {
            OutboxCommand command = report.requested().get(row.id());
            return new DeadRowView(row.id(), row.queue(), row.refusals(), row.lastError(), Instant.ofEpochMilli(row.createdAtMs()),
                    Instant.ofEpochMilli(row.deadAtMs()), command == null ? null : command.wireName());
        }
    }

    /** A command left for the relays of an outbox. */
    public record CommandView(String dataSource, long id, String command) {
    }

    @Inject
    EchoMqEngine engine;

    @GET
    public List<OutboxView> all() {
        return engine.queue().outboxAdmin().gauges().stream()
                .map(gauge -> OutboxView.of(gauge, engine.queue().outboxAdmin().deadRows(gauge.source())))
                .toList();
    }

    @POST
    @Path("dead/{id}/retry")
    @RolesAllowed(Roles.ADMIN)
    public Response retry(@QueryParam("dataSource") String dataSource, @PathParam("id") String id, @Context SecurityContext caller) {
        return request(dataSource, id, OutboxCommand.RETRY, caller);
    }

    @POST
    @Path("dead/{id}/drop")
    @RolesAllowed(Roles.ADMIN)
    public Response drop(@QueryParam("dataSource") String dataSource, @PathParam("id") String id, @Context SecurityContext caller) {
        return request(dataSource, id, OutboxCommand.DROP, caller);
    }

    private Response request(String dataSource, String id, OutboxCommand command, SecurityContext caller) {
        if (dataSource == null || dataSource.isBlank()) {
            throw new InvalidRequestException("dataSource", "is required: the JNDI name of the outbox's data source, as GET /api/outboxes lists it");
        }
        long rowId = rowId(id);
        if (!engine.queue().outboxAdmin().request(dataSource, rowId, command)) {
            throw new WebApplicationException(Problem.of(Response.Status.NOT_FOUND, "the outbox of '" + dataSource + "' reports no dead row "
                    + rowId + " (not dead, already retried or dropped, not among the 100 oldest, or no relay reports that outbox)")
                    .withField("id").toResponse());
        }
        // The relay logs what it did; the request is the admin's, logged here with who asked.
        LOG.warning("EchoMQ: " + caller.getUserPrincipal().getName() + " asked the relays of outbox '" + dataSource + "' to "
                + command.wireName() + " dead row " + rowId);
        return Response.accepted(new CommandView(dataSource, rowId, command.wireName())).build();
    }

    private static long rowId(String id) {
        try {
            long value = Long.parseLong(id);
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new InvalidRequestException("id", "must be a row id (a positive whole number), was '" + id + "'");
    }
}
