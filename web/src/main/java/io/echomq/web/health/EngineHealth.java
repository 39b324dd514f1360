package io.echomq.web.health;

import io.echomq.runtime.DependencyCheck;
import io.echomq.runtime.EchoMqEngine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** Health: live while the engine runs; ready while Valkey and PostgreSQL both answer. */
public final class EngineHealth {

    private EngineHealth() {
    }

    @Liveness
    @ApplicationScoped
    public static class Alive implements HealthCheck {
        @Inject
        EchoMqEngine engine;

        @Override
        public HealthCheckResponse call() {
            HealthCheckResponseBuilder response = HealthCheckResponse.named("echomq-engine");
            try {
                return response.up().withData("queues", String.join(",", engine.queues())).build();
            } catch (IllegalStateException notRunning) {
                return response.down().withData("reason", notRunning.getMessage()).build();
            }
        }
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        @Inject
        EchoMqEngine engine;

        @Override
        public HealthCheckResponse call() {
            HealthCheckResponseBuilder response = HealthCheckResponse.named("echomq-dependencies").up();
            try {
                for (DependencyCheck check : engine.checkDependencies()) {
                    response.withData(check.name(), check.detail());
                    if (!check.up()) {
                        response.down();
                    }
                }
            } catch (IllegalStateException notRunning) {
                response.down().withData("reason", notRunning.getMessage());
            }
            return response.build();
        }
    }
}
