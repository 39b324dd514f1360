package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.reliability.ReliabilitySize;
import io.echomq.reliability.Verdict;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.appserver.AppServers;
import io.echomq.testkit.idp.KeycloakServer;
import io.echomq.testkit.otel.OtlpReceiver;
import jakarta.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same WAR, unchanged, on every server: Payara Micro, WildFly and Open Liberty, each family
 * in the release the project was built against and its newest ({@link AppServers}). On each, one
 * deployment: 1,000 demo jobs over HTTP with an exact ledger; the server JVM killed with SIGKILL
 * while it works 2,000 more (with jobs left) and restarted, nothing lost, nothing applied twice; /metrics in
 * Prometheus text; the auth matrix on a few routes, for passwords and for the identity
 * provider's bearer tokens (Keycloak: accepted, expired, of another realm, forged), with no error in the server's log for an
 * ordinary 401 or 403; the API's contract served as written, and
 * every answer seen one it declares. Each prints one line for the CI log:
 * {@code portability server=wildfly version=35.0.1.Final deploy_ms=… jobs=3000 kills=1 lost=0 duplicates=0}.
 *
 * <p>Every deployment runs with telemetry on, by the standard {@code OTEL_*} settings, exporting
 * traces and metrics to an {@link OtlpReceiver} in the test, and the {@link TraceChecks} run first
 * on it: all six offer MicroProfile Telemetry (Open Liberty 26 its {@code mpTelemetry-2.0} for
 * Jakarta EE 11, which Open Liberty 25 lacks), and all six export the application's metrics (Payara
 * Micro 6 too, though its MicroProfile Telemetry is 1.x: its OpenTelemetry is the SDK's, metrics
 * included). Each prints one more line:
 * {@code traces server=wildfly version=35.0.1.Final checks_ms=… spans=… metric_points=…}.
 */
@WithRealServices
class PortabilityIT {

    private static final int JOBS = 1_000;
    private static final int KILL_JOBS = ReliabilitySize.pick(2_000, 10_000);
    /** One kill per server proves the recovery there; the large size kills more often. */
    private static final int KILLS = ReliabilitySize.pick(1, 6);

    @ParameterizedTest(name = "{0}")
    @EnumSource(AppServers.class)
    void theWarRunsExactlyOnceThroughKillsAndKeepsItsSecurityContract(AppServers kind, ValkeyService valkey, PostgresService postgres)
            throws Exception {
        KeycloakServer keycloak = E2eProvider.keycloak();
        Map<String, String> settings = new HashMap<>(ServerKills.SETTINGS);
        settings.putAll(E2eProvider.environment(keycloak));
        try (OtlpReceiver receiver = new OtlpReceiver();
                // A Valkey database per server: the demo queue's keys are fixed.
                E2eDeployment app = new E2eDeployment(kind, valkey, postgres, 6 + kind.ordinal(), withTelemetry(settings, receiver))) {
            long deployMs = app.server.readyMs();
            long checking = System.nanoTime();
            TraceChecks.oneTraceFromThePostToTheEffect(app, receiver);
            TraceChecks.aRedeliveredJobsProcessSpansLinkToItsOneCreation(app, receiver);
            TraceChecks.messagingMetricsArriveByQueueAndOutcome(receiver);
            System.out.printf("traces server=%s version=%s checks_ms=%d spans=%d metric_points=%d%n", app.server.name(),
                    app.server.version(), (System.nanoTime() - checking) / 1_000_000, receiver.spans().size(), receiver.points().size());

            long applied = DemoJobsOverHttp.submitAndCheckTheLedger(app, JOBS);
            Verdict kills = ServerKills.killDuringJobs(app, KILL_JOBS, KILLS);
            long completed = app.count("completed");
            assertThat(ApiE2eIT.metric(app, "echomq_jobs_completed_total", E2eDeployment.DEMO_QUEUE))
                    .as("/metrics counts this JVM's completions only (a restart starts at 0)").isBetween(1L, completed);

            long beforeRefusals = ServerLog.mark(app.server);
            AuthChecks.anonymousCallersAreAskedToLogIn(app, AuthChecks.FEW);
            AuthChecks.wrongPasswordsAreRefused(app);
            AuthChecks.submittersAreRefusedOnlyWhereAdminIsNeeded(app, AuthChecks.FEW);
            AuthChecks.adminsMayCallEveryRoute(app, AuthChecks.FEW);
            AuthChecks.bearerTokensAreCheckedAsTheProviderIssuedThem(app, keycloak, AuthChecks.FEW);
            AuthChecks.theSessionCookieIsHttpOnlyAndSameSiteLax(app);
            // Read after the later checks' requests, by when a refusal's own log entry is written.
            assertThat(ServerLog.errorsSince(app.server, beforeRefusals))
                    .as("errors %s logged while answering 401 and 403 (%s)", kind, app.server.logFile()).isEmpty();
            ContractChecks.servedAsWritten(app);
            ContractChecks.everyAnswerDeclared(app);

            JsonObject ledger = app.ledger();
            long duplicates = ledger.getJsonNumber("duplicates").longValue() + kills.duplicates();
            long lost = (JOBS - applied) + kills.lost();
            System.out.printf("portability server=%s version=%s deploy_ms=%d jobs=%d kills=%d lost=%d duplicates=%d%n",
                    app.server.name(), app.server.version(), deployMs, JOBS + KILL_JOBS, KILLS, lost, duplicates);
            assertThat(lost).isZero();
            assertThat(duplicates).isZero();
        }
    }

    private static Map<String, String> withTelemetry(Map<String, String> settings, OtlpReceiver receiver) {
        settings.putAll(receiver.environment());
        return settings;
    }
}
