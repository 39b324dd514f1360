package io.echomq.web.api;

import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobView;
import io.echomq.queue.NewFlow;
import io.echomq.queue.QueueClient;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.metrics.QueueMetrics;
import io.echomq.web.problem.Problem;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Optional;

/** Flows: submit a parent and the children it waits for; read a parent's children. Validates, hands off, returns. */
@Path("flows")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class FlowsResource {

    @Inject
    EchoMqEngine engine;

    @Inject
    QueueMetrics metrics;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(@HeaderParam("Idempotency-Key") String idempotencyKey, FlowBody body, @Context UriInfo uri) {
        if (body == null) {
            throw new InvalidRequestException("body", "a JSON object with \"queue\", \"payload\" and \"children\" is required");
        }
        NewFlow flow = body.toNewFlow(Optional.ofNullable(idempotencyKey));
        requireKnownQueues(flow, "");
        FlowSubmitted root = engine.shards().submitFlow(flow);
        Views.FlowCreated created = new Views.FlowCreated(root.id(), root.queue(), root.state().wireName(), root.replayed());
        if (root.replayed()) {
            return Response.ok(created).build();
        }
        metrics.enqueued(root.queue(), 1);
        return Response.created(uri.getBaseUriBuilder().path("queues").path(root.queue()).path("jobs").path(root.id()).build())
                .entity(created).build();
    }

    /**
     * A job's flow: its own children (each one's job once made, its state now, its policy and its
     * outcome as the parent recorded it) and the whole tree it belongs to, from the root down.
     */
    @GET
    @Path("{queue}/{id}")
    public Views.FlowView children(@PathParam("queue") String queue, @PathParam("id") String id) {
        KnownQueues.require(engine, queue);
        JobView parent = FlowTrees.job(engine, queue, id).orElseThrow(() -> new WebApplicationException(
                Problem.of(Response.Status.NOT_FOUND, "no job " + id + " in queue '" + queue + "'").toResponse()));
        List<FlowChild> children = engine.shards().children(queue, id);
        return new Views.FlowView(queue, id, parent.state().wireName(), children.stream().map(child -> Views.FlowChildView.of(child,
                child.jobId().flatMap(childId -> FlowTrees.job(engine, child.queue(), childId)).map(j -> j.state().wireName())
                        .orElse(null))).toList(), FlowTrees.of(engine, parent));
    }

    /** Every queue of the flow must be one this deployment serves (its workers and maintenance run there). */
    private void requireKnownQueues(NewFlow node, String at) {
        try {
            QueueClient.checkQueueName(node.queue());
        } catch (InvalidRequestException e) {
            throw new InvalidRequestException(at + "queue", e.getMessage().substring(e.field().length() + 2));
        }
        if (!engine.knows(node.queue())) {
            throw new WebApplicationException(Problem.of(Response.Status.NOT_FOUND, "unknown queue '" + node.queue()
                    + "': this deployment serves " + engine.queues()).withField(at + "queue").toResponse());
        }
        for (int i = 0; i < node.children().size(); i++) {
            requireKnownQueues(node.children().get(i), at + "children[" + i + "].");
        }
    }
}
