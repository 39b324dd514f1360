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

    synchronized GuaranteesLab lab() {
        if (lab == null) {
            lab = new GuaranteesLab(engine.queue(), engine.effects(), engine.threads(), engine.jdbi());
        }
        return lab;
    }
}
