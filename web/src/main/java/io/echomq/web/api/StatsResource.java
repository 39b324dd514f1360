package io.echomq.web.api;

import io.echomq.web.metrics.QueueMetrics;
import io.echomq.web.metrics.Throughput;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/** Throughput and failures per queue and minute over the last hour (this node's view). */
@Path("stats")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class StatsResource {

    @Inject
    QueueMetrics metrics;

    @GET
    @Path("history")
    public Map<String, List<Throughput.Point>> history() {
        return metrics.throughput().lastHour();
    }
}
