package io.echomq.web.api;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** The demo ledger, so anyone can check exactly-once from outside: duplicates stays 0. */
@Path("demo")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class DemoResource {

    @Inject
    EchoMqEngine engine;

    @GET
    @Path("ledger")
    public LedgerSummary ledger() {
        DemoSwitch.requireOn(engine);
        return LedgerSummary.of(engine.jdbi(), LedgerChargeHandler.QUEUE);
    }
}
