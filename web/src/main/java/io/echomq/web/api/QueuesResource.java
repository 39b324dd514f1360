package io.echomq.web.api;

import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.metrics.QueueMetrics;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;

/** Queues: their counts, their shards, pausing, limits, and batch submission. Validates, hands off, returns. */
@Path("queues")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class QueuesResource {

    @Inject
    EchoMqEngine engine;

    @Inject
    QueueMetrics metrics;

    @GET
    public List<Views.QueueView> all() {
        return Views.QueueView.all(engine);
    }

    @GET
    @Path("{queue}")
    public Views.QueueView one(@PathParam("queue") String queue) {
        return Views.QueueView.of(engine, KnownQueues.require(engine, queue));
    }

    /** Each shard of the queue, where it lives and what it holds: one row, shard 0, for a queue of one shard. */
    @GET
    @Path("{queue}/shards")
    public Views.QueueShardsView shards(@PathParam("queue") String queue) {
        return Views.QueueShardsView.of(queue, engine.shards().shardViews(KnownQueues.require(engine, queue)));
    }

    @POST
    @Path("{queue}/pause")
    @RolesAllowed(Roles.ADMIN)
    public Views.QueueView pause(@PathParam("queue") String queue) {
        engine.shards().pause(KnownQueues.require(engine, queue));
        return one(queue);
    }

    @POST
    @Path("{queue}/resume")
    @RolesAllowed(Roles.ADMIN)
    public Views.QueueView resume(@PathParam("queue") String queue) {
        engine.shards().resume(KnownQueues.require(engine, queue));
        return one(queue);
    }

    @GET
    @Path("{queue}/limits")
    public LimitsBody limits(@PathParam("queue") String queue) {
        return LimitsBody.of(engine.shards().limitsInForce(KnownQueues.require(engine, queue)).limits());
    }

    @PUT
    @Path("{queue}/limits")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    public LimitsBody setLimits(@PathParam("queue") String queue, LimitsBody body) {
        KnownQueues.require(engine, queue);
        if (body == null) {
            throw new InvalidRequestException("body", "must be a JSON object of limits ({} clears every limit)");
        }
        return LimitsBody.of(engine.shards().setLimits(queue, body.toLimits()));
    }

    @POST
    @Path("{queue}/jobs:batch")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submitBatch(@PathParam("queue") String queue, @JsonbProperty("jobs") List<JobBody> body) {
        KnownQueues.require(engine, queue);
        if (body == null) {
            throw new InvalidRequestException("jobs", "the body must be a JSON array of jobs");
        }
        List<NewJob> jobs = body.stream().map(job -> job.toNewJob(Optional.empty())).toList();
        List<Enqueued> accepted = engine.shards().enqueueBatch(queue, jobs);
        metrics.enqueued(queue, accepted.stream().filter(Enqueued::created).count());
        return Response.status(Response.Status.CREATED).entity(accepted.stream().map(Views.JobCreated::of).toList()).build();
    }
}
