package io.echomq.web.api;

import io.echomq.lab.CrashPoint;
import io.echomq.lab.GuaranteesLab;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.WireName;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Locale;

/** The guarantees lab: one demo job through the real engine with a crash injected. */
@Path("lab")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
public class LabResource {

    public record LabRequest(String mode, String crashPoint) {
    }

    @Inject
    LabRunner lab;

    @POST
    @Path("runs")
    @Consumes(MediaType.APPLICATION_JSON)
    public GuaranteesLab.Readout run(LabRequest request) throws InterruptedException {
        if (request == null) {
            throw new InvalidRequestException("body", "send {\"mode\": ..., \"crashPoint\": ...}");
        }
        GuaranteesLab.Mode mode = GuaranteesLab.Mode.fromWireName(String.valueOf(request.mode()));
        return lab.lab().run(mode, crashPoint(request.crashPoint()));
    }

    private static CrashPoint crashPoint(String name) {
        return WireName.find(CrashPoint.class, String.valueOf(name).toLowerCase(Locale.ROOT))
                .orElseThrow(() -> new InvalidRequestException("crashPoint", "must be lease, effect, ack or done"));
    }
}
