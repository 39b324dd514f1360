package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.appserver.PayaraMicroServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A bad setting fails the deployment, and the failure names the key an operator must fix. */
@WithRealServices
class ConfigurationIT {

    @Test
    void aBadSettingFailsTheDeploymentNamingTheKey(ValkeyService valkey, PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("config");
        Map<String, String> env = new HashMap<>(E2eUsers.environment());
        env.put("ECHOMQ_VALKEY_URL", valkey.url() + "/4");
        env.put("ECHOMQ_JDBC_URL", database.jdbcUrl());
        env.put("ECHOMQ_JDBC_USER", database.user());
        env.put("ECHOMQ_JDBC_PASSWORD", database.password());
        env.put("ECHOMQ_WORKER_LEASE_MS", "soon");

        assertThatThrownBy(() -> PayaraMicroServer.forWar(E2eWar.path()).env(env).startupTimeout(Duration.ofSeconds(120)).start())
                .hasMessageContaining("echomq.worker.lease-ms")
                .hasMessageContaining("ECHOMQ_WORKER_LEASE_MS")
                .hasMessageContaining("whole number");
    }
}
