package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.queue.schedule.Schedules;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.Problem;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Recurring jobs: list, read, define, remove, pause and resume the schedules of the queues this
 * deployment serves. A schedule is named within its queue, so its address is
 * {@code schedules/{queue}/{name}}. Validates, hands off to the queue's {@link Schedules} (on a
 * sharded queue, each schedule on its lane's shard), returns.
 */
@Path("schedules")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class SchedulesResource {

    @Inject
    EchoMqEngine engine;

    /** The schedules of every queue this deployment serves (or of {@code queue}), by queue and name. */
    @GET
    public List<ScheduleViews.ScheduleBody> list(@QueryParam("queue") String queue) {
        Set<String> queues = queue == null ? new TreeSet<>(engine.queues()) : Set.of(KnownQueues.require(engine, queue));
        List<ScheduleViews.ScheduleBody> all = new ArrayList<>();
        for (String q : queues) {
            schedules(q).list(q).forEach(v -> all.add(ScheduleViews.ScheduleBody.summary(v)));
        }
        return all;
    }

    @GET
    @Path("{queue}/{name}")
    public ScheduleViews.ScheduleBody one(@PathParam("queue") String queue, @PathParam("name") String name) {
        KnownQueues.require(engine, queue);
        return detail(schedules(queue).get(queue, name).orElseThrow(() -> notFound(queue, name)));
    }

    /** Creates (201) or replaces (200) the schedule; an unchanged definition changes nothing (200). */
    @PUT
    @Path("{queue}/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    public Response put(@PathParam("queue") String queue, @PathParam("name") String name, ScheduleRequest body,
            @Context UriInfo uri) {
        Defined defined = define(queue, name, body);
        return defined.created()
                ? Response.created(uri.getAbsolutePath()).entity(defined.now()).build()
                : Response.ok(defined.now()).build();
    }

    /** What a PUT did: whether it created the schedule, and the schedule now. */
    record Defined(boolean created, ScheduleViews.ScheduleBody now) {
    }

    /** The work of a PUT, apart from its HTTP answer. */
    Defined define(String queue, String name, ScheduleRequest body) {
        KnownQueues.require(engine, queue);
        if (body == null) {
            throw new InvalidRequestException("body", "a JSON object with \"cron\" (and \"zone\") or \"intervalMs\" is required");
        }
        Schedule schedule = body.toSchedule(queue, name);
        Duration tick = engine.config().maintenance().interval();
        if (schedule.misfireGrace().compareTo(tick) <= 0) {
            throw new InvalidRequestException("misfireGraceMs", "must be more than the maintenance interval (" + tick.toMillis()
                    + " ms), or every slot would count as missed; was " + schedule.misfireGrace().toMillis());
        }
        ScheduleClient.PutResult result = schedules(queue).put(schedule, "api");
        return new Defined(result == ScheduleClient.PutResult.CREATED, one(queue, name));
    }

    /** Removes the schedule and its history (its jobs stay); answers the schedule as it was. */
    @DELETE
    @Path("{queue}/{name}")
    @RolesAllowed(Roles.ADMIN)
    public ScheduleViews.ScheduleBody remove(@PathParam("queue") String queue, @PathParam("name") String name) {
        ScheduleViews.ScheduleBody last = one(queue, name);
        if (!schedules(queue).remove(queue, name)) {
            throw notFound(queue, name);
        }
        return last;
    }

    @POST
    @Path("{queue}/{name}/pause")
    @RolesAllowed(Roles.ADMIN)
    public ScheduleViews.ScheduleBody pause(@PathParam("queue") String queue, @PathParam("name") String name) {
        KnownQueues.require(engine, queue);
        if (!schedules(queue).pause(queue, name)) {
            throw notFound(queue, name);
        }
        return one(queue, name);
    }

    /** Resumes the schedule; the slots that came due while it was paused are skipped. */
    @POST
    @Path("{queue}/{name}/resume")
    @RolesAllowed(Roles.ADMIN)
    public ScheduleViews.ScheduleBody resume(@PathParam("queue") String queue, @PathParam("name") String name) {
        KnownQueues.require(engine, queue);
        if (!schedules(queue).resume(queue, name)) {
            throw notFound(queue, name);
        }
        return one(queue, name);
    }

    /** The queue's schedules, on a sharded queue each on its lane's shard. */
    private Schedules schedules(String queue) {
        return engine.shards().schedules(queue);
    }

    private ScheduleViews.ScheduleBody detail(ScheduleView view) {
        String lastJobState = view.lastJob()
                .flatMap(id -> engine.shards().readsOf(view.definition().queue(), id).job(view.definition().queue(), id))
                .map(job -> job.state().wireName())
                .orElse(null);
        return ScheduleViews.ScheduleBody.detail(view, lastJobState);
    }

    private static WebApplicationException notFound(String queue, String name) {
        return new WebApplicationException(Problem.of(Response.Status.NOT_FOUND, "queue '" + queue + "' has no schedule '" + name
                + "' (never defined, or removed); PUT a definition to create it").withField("name").toResponse());
    }
}
