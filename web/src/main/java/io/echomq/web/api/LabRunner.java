package io.echomq.web.api;

import io.echomq.lab.GuaranteesLab;
import io.echomq.runtime.EchoMqEngine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The one guarantees lab of this deployment, built on the engine's parts the first time it is asked for. */
@ApplicationScoped
public class LabRunner {

    @Inject
    EchoMqEngine engine;

    private GuaranteesLab lab;

    /** @throws jakarta.ws.rs.WebApplicationException 404 where the demo, whose handler and tables the lab uses, is off */
    synchronized GuaranteesLab lab() {
        DemoSwitch.requireOn(engine);
        if (lab == null) {
            lab = new GuaranteesLab(engine.queue(), engine.effects(), engine.threads(), engine.jdbi());
        }
        return lab;
    }
}
