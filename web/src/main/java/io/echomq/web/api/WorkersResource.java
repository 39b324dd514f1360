package io.echomq.web.api;

import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Which worker holds which lease until when, across the queues (the active jobs). */
@Path("workers")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class WorkersResource {

    /** The most leases listed per queue. */
    private static final int LIMIT = 500;

    public record LeaseView(String queue, String jobId, String worker, long attempt, Instant claimedAt, Instant leaseUntil) {
    }

    @Inject
    EchoMqEngine engine;

    @GET
    public List<LeaseView> leases() {
        List<LeaseView> leases = new ArrayList<>();
        for (String queue : engine.queues()) {
            for (QueueClient shard : engine.shards().partsOf(queue)) {
                for (JobView job : shard.reads().jobs(queue, JobState.ACTIVE, Optional.empty(), LIMIT).jobs()) {
                    leases.add(new LeaseView(queue, job.id(), job.worker().orElse(null), job.attempts(),
                            job.claimedAt().orElse(null), job.leaseUntil().orElse(null)));
                }
            }
        }
        return leases;
    }
}
