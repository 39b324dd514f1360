package io.echomq.web.api;

import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.Problem;
import jakarta.ws.rs.WebApplicationException;

/** The demo's routes (its ledger, the guarantees lab) exist only where the demo is on: its tables do too. */
final class DemoSwitch {

    private DemoSwitch() {
    }

    /** @throws WebApplicationException 404 with a problem body that says how to turn the demo on */
    static void requireOn(EchoMqEngine engine) {
        if (!engine.config().demoEnabled()) {
            throw new WebApplicationException(Problem.of(404, "Not Found",
                    "the demo is off in this deployment (echomq.demo.enabled=false; it is on in dev mode)").toResponse());
        }
    }
}
