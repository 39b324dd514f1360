package io.echomq.web.api;

import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueReads;
import io.echomq.queue.WireName;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.metrics.QueueMetrics;
import io.echomq.web.problem.Problem;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Locale;
import java.util.Optional;

/** One queue's jobs: submit, list, inspect, cancel, retry, promote, reschedule. Validates, hands off, returns. */
@Path("queues/{queue}/jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class JobsResource {

    @Inject
    EchoMqEngine engine;

    @Inject
    QueueMetrics metrics;

    @PathParam("queue")
    String queue;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(@HeaderParam("Idempotency-Key") String idempotencyKey, JobBody body, @Context UriInfo uri) {
        KnownQueues.require(engine, queue);
        if (body == null) {
            throw new InvalidRequestException("body", "a JSON object with at least \"payload\" is required");
        }
        Enqueued job = engine.shards().enqueue(queue, body.toNewJob(Optional.ofNullable(idempotencyKey)));
        if (!job.created()) {
            // Nothing new was made: the idempotency key's job, the debounced job replaced, or the
            // throttle window's job. The body's outcome says which.
            return Response.ok(Views.JobCreated.of(job)).build();
        }
        metrics.enqueued(queue, 1);
        return Response.created(uri.getAbsolutePathBuilder().path(job.id()).build()).entity(Views.JobCreated.of(job)).build();
    }

    @GET
    public Views.JobList list(@QueryParam("state") @DefaultValue("pending") String state, @QueryParam("cursor") String cursor,
            @QueryParam("limit") @DefaultValue("50") int limit) {
        KnownQueues.require(engine, queue);
        JobPage page = engine.shards().jobs(queue, parseState(state), Optional.ofNullable(cursor).filter(c -> !c.isEmpty()), limit);
        return new Views.JobList(queue, page.state().wireName(), page.jobs().stream().map(Views.JobSummary::of).toList(),
                page.next().orElse(null));
    }

    @GET
    @Path("{id}")
    public Views.JobDetail one(@PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        QueueReads reads = engine.shards().readsOf(queue, id);
        return reads.job(queue, id)
                .map(job -> Views.JobDetail.of(job, engine.effects().find(job.identity()), engine.effects().result(job.identity()),
                        reads.history(queue, id)))
                .orElseThrow(() -> notFound(id));
    }

    @POST
    @Path("{id}/cancel")
    @RolesAllowed(Roles.ADMIN)
    public Response cancel(@PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        ManualTransition outcome = engine.shards().adminOf(queue, id).cancel(queue, id);
        if (outcome instanceof ManualTransition.CancelRequested requested) {
            // An active job: its handler learns the request with its next heartbeat, and the job ends later.
            return Response.accepted(Views.CancelRequest.of(requested)).build();
        }
        return Response.ok(transition(outcome)).build();
    }

    @POST
    @Path("{id}/retry")
    @RolesAllowed(Roles.ADMIN)
    public Views.Transition retry(@PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        return transition(engine.shards().adminOf(queue, id).requeue(queue, id));
    }

    @POST
    @Path("{id}/promote")
    @RolesAllowed(Roles.ADMIN)
    public Views.Transition promote(@PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        return transition(engine.shards().adminOf(queue, id).promote(queue, id));
    }

    @PUT
    @Path("{id}/due")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public Views.DueTime changeDue(@PathParam("id") String id, DueChange body) {
        KnownQueues.require(engine, queue);
        ManualTransition outcome = DueChange.applyTo(body, engine.shards().adminOf(queue, id), queue, id);
        if (outcome instanceof ManualTransition.Rescheduled rescheduled) {
            return Views.DueTime.of(rescheduled);
        }
        Views.Transition moved = transition(outcome);
        return new Views.DueTime(moved.id(), moved.queue(), moved.to(), null);
    }

    @POST
    @Path("{id}/delete")
    @RolesAllowed(Roles.ADMIN)
    public Views.Transition delete(@PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        return transition(engine.shards().adminOf(queue, id).remove(queue, id));
    }

    private Views.Transition transition(ManualTransition outcome) {
        if (outcome instanceof ManualTransition.Moved moved) {
            return Views.Transition.of(moved);
        }
        if (outcome instanceof ManualTransition.Removed removed) {
            return Views.Transition.of(removed);
        }
        ManualTransition.Refused refused = (ManualTransition.Refused) outcome;
        if (refused.current().isEmpty()) {
            throw notFound(refused.jobId());
        }
        throw new WebApplicationException(Problem.of(Response.Status.CONFLICT, refused.why()).toResponse());
    }

    private WebApplicationException notFound(String id) {
        return new WebApplicationException(Problem.of(Response.Status.NOT_FOUND,
                "queue '" + queue + "' has no job " + id + " (never submitted, or deleted by retention)").withField("id").toResponse());
    }

    private static JobState parseState(String state) {
        return WireName.find(JobState.class, state.toLowerCase(Locale.ROOT)).orElseThrow(() -> new InvalidRequestException("state",
                "must be one of " + String.join(", ", WireName.all(JobState.class))));
    }
}
