package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.Verdict;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.idp.KeycloakServer;
import io.echomq.testkit.WithRealServices;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.RedisClient;

/**
 * The product over HTTP, deployed on a real Payara Micro against real Valkey and PostgreSQL (PortabilityIT
 * repeats the core of it on every server):
 * submissions, idempotency, exactly-once on the demo ledger, the auth matrix, bad input.
 */
@WithRealServices
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class ApiE2eIT {

    private static final String JOBS = "/api/queues/payments/jobs";
    private static E2eDeployment app;
    private static KeycloakServer keycloak;

    @BeforeAll
    static void deploy(ValkeyService valkey, PostgresService postgres) {
        keycloak = E2eProvider.keycloak();
        Map<String, String> settings = new HashMap<>(E2eProvider.environment(keycloak));
        settings.putAll(Map.of("ECHOMQ_WORKER_CONCURRENCY", "8",
                // Queues no handler here drains: the jobs its schedules make stay to be looked at, and
                // on "held" a test can hold a job's lease itself.
                "ECHOMQ_QUEUES", Schedules.QUEUE + ",held," + LedgerChargeHandler.RECEIPTS,
                "ECHOMQ_SCHEDULES", "nightly",
                "ECHOMQ_SCHEDULES_NIGHTLY_QUEUE", Schedules.QUEUE,
                "ECHOMQ_SCHEDULES_NIGHTLY_CRON", "0 3 * * *",
                "ECHOMQ_SCHEDULES_NIGHTLY_ZONE", "Europe/Paris"));
        // Two ways in: the configured users (HTTP Basic) and the identity provider (bearer tokens, console sessions).
        app = new E2eDeployment(valkey, postgres, 2, settings);
    }

    @AfterAll
    static void undeploy() {
        if (app != null) {
            app.close();
        }
    }

    static JsonObject json(E2eHttp.Response response) {
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return reader.readObject();
        }
    }

    static jakarta.json.JsonArray jsonArray(E2eHttp.Response response) {
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return reader.readArray();
        }
    }

    /**
     * The reliability checker's verdict on the demo queue for a scenario that acknowledges no
     * submissions (bad input, auth): nothing of the ledger may be duplicated; figures follow.
     */
    static Verdict checkedWithoutSubmissions(String scenario, int faults) {
        try (RedisClient redis = app.valkeyClient()) {
            return ReliabilityChecker.check(scenario, faults, 0, QueueClient.connect(redis, QueueSettings.DEFAULT), "payments",
                    Jdbi.create(app.database.dataSource()), List.of());
        }
    }

    static String charge(String account, int cents) {
        return "{\"payload\":{\"account\":\"" + account + "\",\"amountCents\":" + cents + "}}";
    }

    /**
     * A per-queue counter as the WAR's /metrics (Prometheus text, under the application's context
     * root, the same on every server) reports it; 0 when the queue has no such series yet.
     */
    static long metric(String name, String queue) {
        return metric(app, name, queue);
    }

    static long metric(E2eDeployment deployment, String name, String queue) {
        E2eHttp.Response metrics = deployment.anonymous.send("GET", "/metrics", null, Map.of("Accept", "text/plain"));
        assertThat(metrics.status()).as("GET /metrics: " + metrics.body()).isEqualTo(200);
        return metrics.body().lines()
                .filter(line -> line.startsWith(name + "{") && line.contains("queue=\"" + queue + "\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElse(0);
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class ExactlyOnceOverHttp {
        /** Telemetry is off here, as by default (MicroProfile Telemetry's OTEL_SDK_DISABLED=true). */
        @Test
        void aJobCarriesNoTraceWhenTelemetryIsOff() {
            TraceChecks.aJobCarriesNoTraceWhenTelemetryIsOff(app);
        }

        @Test
        void thousandDemoJobsAllCompleteAndTheLedgerIsExact() throws Exception {
            DemoJobsOverHttp.submitAndCheckTheLedger(app, 1_000);
        }

        @Test
        void eachMaintenanceDutyReportsItsRunsOnTheQueueInTheMetrics() throws Exception {
            for (String duty : List.of("reaper", "reconciler", "schedules")) {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (maintenanceRuns(duty) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertThat(maintenanceRuns(duty)).as("runs of the " + duty + " on queue payments in /metrics").isPositive();
            }
        }

        @Test
        void theMetricsServeEachQueuesJobsPerStatePauseOldestPendingAgeAndEffectRetentionOverdue() {
            E2eHttp.Response metrics = app.anonymous.send("GET", "/metrics", null, Map.of("Accept", "text/plain"));

            assertThat(metrics.body()).contains("echomq_queue_jobs{queue=\"payments\",state=\"pending\"}")
                    .contains("echomq_queue_jobs{queue=\"payments\",state=\"completed\"}")
                    .contains("echomq_queue_paused{queue=\"payments\"} 0.0")
                    .contains("echomq_queue_oldest_pending_age_seconds{queue=\"payments\"}")
                    .contains("echomq_effect_retention_overdue_seconds{queue=\"payments\"} 0.0");
        }

        private long maintenanceRuns(String duty) {
            E2eHttp.Response metrics = app.anonymous.send("GET", "/metrics", null, Map.of("Accept", "text/plain"));
            return metrics.body().lines()
                    .filter(line -> line.startsWith("echomq_maintenance_runs_total{") && line.contains("duty=\"" + duty + "\"")
                            && line.contains("queue=\"payments\""))
                    .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .findFirst().orElse(0);
        }

        @Test
        void theSameKeyPostedTenTimesConcurrentlyMakesOneJob() throws Exception {
            ExecutorService clients = Executors.newFixedThreadPool(10);
            List<Callable<E2eHttp.Response>> posts = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                posts.add(() -> app.submitter.post(JOBS, charge("once", 700), Map.of("Idempotency-Key", "order-once")));
            }
            List<E2eHttp.Response> answers = new ArrayList<>();
            for (Future<E2eHttp.Response> answer : clients.invokeAll(posts)) {
                answers.add(answer.get());
            }
            clients.shutdown();

            assertThat(answers).extracting(E2eHttp.Response::status).containsOnly(200, 201).filteredOn(s -> s == 201).hasSize(1);
            assertThat(answers).extracting(a -> json(a).getString("id")).containsOnly(json(answers.get(0)).getString("id"));
            String id = json(answers.get(0)).getString("id");
            awaitJob(id, "completed");
            assertThat(json(app.submitter.get(JOBS + "/" + id)).getJsonObject("effect").getInt("appliedByAttempt")).isEqualTo(1);
        }

        @Test
        void aKeyResubmittedAfterItsJobWasDeletedChargesOnceAndNamesTheFirstJob() throws Exception {
            long entriesBefore = app.ledger().getJsonNumber("entries").longValue();
            Map<String, String> key = Map.of("Idempotency-Key", "order-deleted-then-resubmitted");
            E2eHttp.Response first = app.submitter.post(JOBS, charge("resubmitted", 300), key);
            assertThat(first.status()).isEqualTo(201);
            String firstId = json(first).getString("id");
            awaitJob(firstId, "completed");
            assertThat(app.admin.post(JOBS + "/" + firstId + "/delete", null).status()).isEqualTo(200);

            E2eHttp.Response again = app.submitter.post(JOBS, charge("resubmitted", 300), key);

            assertThat(again.status()).as("Valkey freed the key with the job: a new job").isEqualTo(201);
            JsonObject job = awaitJob(json(again).getString("id"), "completed");
            assertThat(job.getJsonObject("effect").getString("appliedByJob")).isEqualTo(firstId);
            assertThat(app.ledger().getJsonNumber("entries").longValue() - entriesBefore).as("charges").isEqualTo(1);
            assertThat(metric("echomq_effects_resubmissions_absorbed_total", "payments")).as("operators see it in the metrics").isEqualTo(1);
        }

        @Test
        void aJobsDetailShowsItsEffect() throws Exception {
            E2eHttp.Response created = app.submitter.post(JOBS, charge("detail", 250));
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.header("Location")).hasValueSatisfying(l -> assertThat(l).endsWith(JOBS + "/" + json(created).getString("id")));
            String id = json(created).getString("id");

            JsonObject job = awaitJob(id, "completed");

            assertThat(job.getJsonObject("payload").getString("account")).isEqualTo("detail");
            assertThat(job.getInt("attempts")).isEqualTo(1);
            assertThat(job.getJsonObject("effect").getInt("appliedByAttempt")).isEqualTo(1);
        }

        /**
         * The demo's receipt: the charge's result and its follow-up job, both written in the
         * charge's effect transaction by the WAR's engine, the follow-up relayed by its outbox.
         */
        @Test
        void aChargeWithAReceiptShowsItsResultAndMakesItsFollowUpOnce() throws Exception {
            E2eHttp.Response created = app.submitter.post(JOBS, "{\"payload\":{\"account\":\"receipt\",\"amountCents\":125,\"receipt\":true}}");
            assertThat(created.status()).isEqualTo(201);
            String id = json(created).getString("id");

            JsonObject job = awaitJob(id, "completed");

            JsonObject result = job.getJsonObject("result");
            assertThat(result.getString("account")).isEqualTo("receipt");
            assertThat(result.getJsonNumber("amountCents").longValue()).isEqualTo(125);
            assertThat(result.getString("chargedByJob")).isEqualTo(id);
            String followUpKey = "followup:payments:" + id + ":" + Instant.parse(job.getString("createdAt")).toEpochMilli() + ":receipt";
            JsonObject receipt = awaitFollowUp(followUpKey);
            assertThat(json(app.submitter.get("/api/queues/" + LedgerChargeHandler.RECEIPTS + "/jobs/" + receipt.getString("id")))
                    .getJsonObject("payload")).isEqualTo(result);
            JsonObject plain = awaitJob(json(app.submitter.post(JOBS, charge("no-receipt", 125))).getString("id"), "completed");
            assertThat(plain.containsKey("result")).as("a charge without a receipt has no result").isFalse();
        }

        /**
         * A submitter who learns a charge's id and creation time must not be able to post the
         * charge's receipt first under its follow-up key: the engine's follow-up would then be a
         * duplicate of the submitter's job, and the receipt the charge wrote would never exist.
         */
        @Test
        void aSubmitterCannotTakeTheKeyOfAFollowUpBeforeItsJobMakesIt() throws Exception {
            long inAnHour = System.currentTimeMillis() + 3_600_000;
            E2eHttp.Response created = app.submitter.post(JOBS, "{\"payload\":{\"account\":\"receipt-takeover\",\"amountCents\":75,"
                    + "\"receipt\":true},\"runAt\":" + inAnHour + "}");
            assertThat(created.status()).as("%s", created).isEqualTo(201);
            String id = json(created).getString("id");
            long createdMs = Instant.parse(json(app.submitter.get(JOBS + "/" + id)).getString("createdAt")).toEpochMilli();
            String followUpKey = "followup:payments:" + id + ":" + createdMs + ":receipt";

            E2eHttp.Response taken = app.submitter.post("/api/queues/" + LedgerChargeHandler.RECEIPTS + "/jobs",
                    "{\"payload\": {\"account\": \"submitter\"}}", Map.of("Idempotency-Key", followUpKey));

            assertRefused(taken, 400, "idempotencyKey");
            assertThat(app.admin.post(JOBS + "/" + id + "/promote", null).status()).isEqualTo(200);
            JsonObject result = awaitJob(id, "completed").getJsonObject("result");
            JsonObject receipt = awaitFollowUp(followUpKey);
            assertThat(json(app.submitter.get("/api/queues/" + LedgerChargeHandler.RECEIPTS + "/jobs/" + receipt.getString("id")))
                    .getJsonObject("payload")).as("the charge's own receipt").isEqualTo(result);
        }

        /** The receipts queue's one job with this idempotency key; fails if there are more. */
        private JsonObject awaitFollowUp(String key) throws InterruptedException {
            for (int i = 0; i < 200; i++) {
                List<JsonObject> withKey = new ArrayList<>();
                for (JsonValue listed : json(app.submitter.get("/api/queues/" + LedgerChargeHandler.RECEIPTS
                        + "/jobs?state=pending&limit=500")).getJsonArray("jobs")) {
                    JsonObject detail = json(app.submitter.get("/api/queues/" + LedgerChargeHandler.RECEIPTS + "/jobs/"
                            + listed.asJsonObject().getString("id")));
                    if (key.equals(detail.getString("idempotencyKey", null))) {
                        withKey.add(detail);
                    }
                }
                if (!withKey.isEmpty()) {
                    assertThat(withKey).as("follow-ups with key " + key).hasSize(1);
                    return withKey.get(0);
                }
                Thread.sleep(100);
            }
            throw new AssertionError("no follow-up with key " + key + " on queue " + LedgerChargeHandler.RECEIPTS);
        }

        private JsonObject awaitJob(String id, String state) throws InterruptedException {
            for (int i = 0; i < 200; i++) {
                JsonObject job = json(app.submitter.get(JOBS + "/" + id));
                if (job.getString("state").equals(state)) {
                    return job;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("job " + id + " never became " + state + ": " + app.submitter.get(JOBS + "/" + id));
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class AuthMatrix {
        /** Requests of the sweep whose answer was the specified one (a wrong answer fails its test). */
        private final AtomicInteger swept = new AtomicInteger();

        @Test
        void anonymousCallersAreAskedToLogInOnEveryRoute() {
            swept.addAndGet(AuthChecks.anonymousCallersAreAskedToLogIn(app, AuthChecks.ALL));
        }

        @Test
        void wrongPasswordsAreRefused() {
            swept.addAndGet(AuthChecks.wrongPasswordsAreRefused(app));
        }

        @Test
        void submittersAreRefusedOnlyWhereAdminIsNeeded() {
            swept.addAndGet(AuthChecks.submittersAreRefusedOnlyWhereAdminIsNeeded(app, AuthChecks.ALL));
        }

        @Test
        void adminsMayCallEveryRoute() {
            swept.addAndGet(AuthChecks.adminsMayCallEveryRoute(app, AuthChecks.ALL));
        }

        @Test
        void theProvidersBearerTokensAreAcceptedWithTheirRolesAndExpiredOrForeignOnesRefused() {
            swept.addAndGet(AuthChecks.bearerTokensAreCheckedAsTheProviderIssuedThem(app, keycloak, AuthChecks.ALL));
        }

        @Test
        void consoleSessionsBegunAtTheProviderMayDoWhatTheirRolesAllow() {
            swept.addAndGet(AuthChecks.submittersAreRefusedOnlyWhereAdminIsNeeded(providerSession(E2eProvider.SUBMITTER), AuthChecks.ALL));
            swept.addAndGet(AuthChecks.adminsMayCallEveryRoute(app, providerSession(E2eProvider.ADMIN), AuthChecks.ALL));
        }

        /** Scenario 13 of the reliability suite, with the three role sweeps above: the console's guard on every action. */
        @Test
        void everyStateChangeFromABrowserWithoutTheTokenOrFromAForeignOriginIsRefused() {
            String origin = app.server.baseUrl().replaceAll("(https?://[^/]+).*", "$1");
            // Every way in: the configured users' passwords, the provider's tokens, and console sessions begun at the provider.
            List<E2eHttp> users = List.of(app.admin, app.submitter,
                    app.anonymous.withBearer(E2eProvider.clientCredentialsToken(keycloak, E2eProvider.REALM, E2eProvider.MACHINE_ADMIN)),
                    app.anonymous.withBearer(E2eProvider.clientCredentialsToken(keycloak, E2eProvider.REALM, E2eProvider.MACHINE)),
                    providerSession(E2eProvider.ADMIN), providerSession(E2eProvider.SUBMITTER));
            for (E2eHttp user : users) {
                String token = json(user.get("/api/session")).getString("csrfToken");
                for (AuthChecks.Route route : AuthChecks.ALL) {
                    if ("GET".equals(route.method())) {
                        continue;
                    }
                    E2eHttp.Response foreign = user.send(route.method(), route.path(), route.body(),
                            Map.of("Origin", "http://evil.example", "X-CSRF-Token", token));
                    E2eHttp.Response tokenless = user.send(route.method(), route.path(), route.body(), Map.of("Origin", origin));
                    assertThat(foreign.status()).as("foreign Origin, %s %s: %s", route.method(), route.path(), foreign).isEqualTo(403);
                    assertThat(tokenless.status()).as("no CSRF token, %s %s: %s", route.method(), route.path(), tokenless).isEqualTo(403);
                    swept.addAndGet(2);
                }
            }
        }

        /** A console session of {@code user} (of the provider's realm), begun through the provider's login form. */
        private E2eHttp providerSession(String user) {
            String password = user.equals(E2eProvider.ADMIN) ? E2eProvider.ADMIN_PASSWORD : E2eProvider.SUBMITTER_PASSWORD;
            return app.anonymous.inSession(E2eProvider.consoleSession(app.server.baseUrl(), user, password));
        }

        @AfterAll
        void printTheSweep() {
            checkedWithoutSubmissions("auth-sweep", 0).with("requests_as_specified", swept.get()).print();
        }

        @Test
        void aboutIsPublic() {
            assertThat(app.anonymous.get("/api/about").status()).isEqualTo(200);
        }
    }

    @Nested
    class ForTheConsole {
        @Test
        void aJobsDetailCarriesItsHistory() throws Exception {
            String id = json(app.submitter.post(JOBS, charge("history", 5))).getString("id");
            for (int i = 0; i < 100 && !json(app.submitter.get(JOBS + "/" + id)).getString("state").equals("completed"); i++) {
                Thread.sleep(100);
            }
            JsonObject job = json(app.submitter.get(JOBS + "/" + id));

            assertThat(job.getJsonArray("history").stream().map(e -> e.asJsonObject().getString("event")).toList())
                    .containsExactly("enqueued", "claimed", "completed");
        }

        @Test
        void stateChangesFromABrowserNeedTheSessionsCsrfToken() {
            String origin = app.server.baseUrl().replaceAll("(https?://[^/]+).*", "$1");
            String token = json(app.admin.get("/api/session")).getString("csrfToken");

            E2eHttp.Response foreign = app.admin.post("/api/queues/payments/resume", null, Map.of("Origin", "http://evil.example"));
            E2eHttp.Response tokenless = app.admin.post("/api/queues/payments/resume", null, Map.of("Origin", origin));
            E2eHttp.Response forged = app.admin.post("/api/queues/payments/resume", null, Map.of("Origin", origin, "X-CSRF-Token", "forged"));
            E2eHttp.Response proper = app.admin.post("/api/queues/payments/resume", null, Map.of("Origin", origin, "X-CSRF-Token", token));

            assertThat(foreign.status()).isEqualTo(403);
            assertThat(tokenless.status()).isEqualTo(403);
            assertThat(forged.status()).isEqualTo(403);
            assertThat(proper.status()).as("%s", proper).isEqualTo(200);
            assertThat(app.submitter.post("/api/queues/payments/jobs", charge("script", 1)).status())
                    .as("scripts (no browser headers) need no token").isEqualTo(201);
        }

        @Test
        void theLabReadoutsMatchTheSeedsVerdicts() {
            JsonObject atMostOnce = lab("at-most-once");
            JsonObject atLeastOnce = lab("at-least-once");
            JsonObject effectStore = lab("effect-store");

            assertThat(atMostOnce.getInt("lost")).isEqualTo(1);
            assertThat(atMostOnce.getInt("effectsApplied")).isZero();
            assertThat(atLeastOnce.getInt("lost")).isZero();
            assertThat(atLeastOnce.getInt("effectsApplied")).isEqualTo(2);
            assertThat(effectStore.getInt("lost")).isZero();
            assertThat(effectStore.getInt("deliveries")).isEqualTo(2);
            assertThat(effectStore.getInt("effectsApplied")).isEqualTo(1);
        }

        private JsonObject lab(String mode) {
            E2eHttp.Response run = app.admin.post("/api/lab/runs", "{\"mode\":\"" + mode + "\",\"crashPoint\":\"effect\"}");
            assertThat(run.status()).as("%s", run).isEqualTo(200);
            return json(run);
        }

        @Test
        void eventsStreamTheQueueCounts() throws Exception {
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.server.baseUrl() + "/api/events"))
                    .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                            (E2eUsers.SUBMITTER + ":" + E2eUsers.SUBMITTER_PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .header("Accept", "text/event-stream").build();
            java.net.http.HttpResponse<java.util.stream.Stream<String>> response = java.net.http.HttpClient.newHttpClient()
                    .send(request, java.net.http.HttpResponse.BodyHandlers.ofLines());
            try (java.util.stream.Stream<String> lines = response.body()) {
                List<String> first = lines.limit(2).toList();
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(first.get(0)).isEqualTo("event: stats");
                assertThat(first.get(1)).startsWith("data: [").contains("\"name\":\"payments\"");
            }
        }

        @Test
        void aDedupeKeyAnswersWhatTheSubmissionDid() {
            // On the queue no worker serves (its jobs are cancelled at the end, so the queue is left as found).
            String held = "/api/queues/held/jobs";
            String run = Long.toString(System.nanoTime());   // the windows outlive the jobs: a key of this run's own
            String throttle = ",\"dedupe\":{\"key\":\"e2e-throttle-" + run + "\",\"windowMs\":600000,\"mode\":\"throttle\"}}";
            E2eHttp.Response first = app.submitter.post(held, "{\"payload\":{\"account\":\"throttled\",\"amountCents\":1}" + throttle);
            assertThat(first.status()).as("%s", first).isEqualTo(201);
            assertThat(json(first).getString("outcome")).isEqualTo("created");
            String firstId = json(first).getString("id");
            E2eHttp.Response dropped = app.submitter.post(held, "{\"payload\":{\"account\":\"throttled\",\"amountCents\":2}" + throttle);
            assertThat(dropped.status()).as("%s", dropped).isEqualTo(200);
            assertThat(json(dropped).getString("outcome")).isEqualTo("throttled");
            assertThat(json(dropped).getString("id")).isEqualTo(firstId);
            assertThat(app.admin.post(held + "/" + firstId + "/cancel", null).status()).isEqualTo(200);

            String debounce = ",\"dedupe\":{\"key\":\"e2e-debounce-" + run + "\",\"windowMs\":600000,\"mode\":\"debounce\"}}";
            E2eHttp.Response waiting = app.submitter.post(held, "{\"payload\":{\"account\":\"debounced\",\"amountCents\":1}" + debounce);
            assertThat(waiting.status()).as("%s", waiting).isEqualTo(201);
            assertThat(json(waiting).getString("state")).isEqualTo("delayed");
            String id = json(waiting).getString("id");
            E2eHttp.Response replaced = app.submitter.post(held, "{\"payload\":{\"account\":\"debounced\",\"amountCents\":2}" + debounce);
            assertThat(replaced.status()).as("%s", replaced).isEqualTo(200);
            assertThat(json(replaced).getString("outcome")).isEqualTo("replaced");
            JsonObject job = json(app.submitter.get(held + "/" + id));
            assertThat(job.getString("dedupeKey")).isEqualTo("e2e-debounce-" + run);
            assertThat(job.getJsonObject("payload").getInt("amountCents")).as("the last wins").isEqualTo(2);
            assertThat(app.admin.post(held + "/" + id + "/cancel", null).status()).isEqualTo(200);
        }

        @Test
        void aJobSubmittedToRunAtATimeCanBeRescheduledAndPromoted() throws Exception {
            long inAnHour = System.currentTimeMillis() + 3_600_000;
            E2eHttp.Response submitted = app.submitter.post(JOBS, "{\"payload\":{\"account\":\"run-at\",\"amountCents\":5},\"runAt\":"
                    + inAnHour + "}");
            assertThat(submitted.status()).as("%s", submitted).isEqualTo(201);
            assertThat(json(submitted).getString("state")).isEqualTo("delayed");
            String id = json(submitted).getString("id");
            assertThat(java.time.Instant.parse(json(app.submitter.get(JOBS + "/" + id)).getString("dueAt")).toEpochMilli())
                    .isEqualTo(inAnHour);

            E2eHttp.Response later = app.admin.put(JOBS + "/" + id + "/due", "{\"runAt\":" + (inAnHour + 60_000) + "}");
            assertThat(later.status()).as("%s", later).isEqualTo(200);
            assertThat(json(later).getString("state")).isEqualTo("delayed");
            assertThat(java.time.Instant.parse(json(later).getString("dueAt")).toEpochMilli()).isEqualTo(inAnHour + 60_000);
            assertThat(app.submitter.put(JOBS + "/" + id + "/due", "{\"delayMs\":1000}").status()).as("admin only").isEqualTo(403);
            assertThat(app.admin.put(JOBS + "/" + id + "/due", "{\"delayMs\":1000,\"runAt\":1}").status()).isEqualTo(400);

            E2eHttp.Response promoted = app.admin.post(JOBS + "/" + id + "/promote", null);
            assertThat(promoted.status()).as("%s", promoted).isEqualTo(200);
            assertThat(json(promoted).getString("from")).isEqualTo("delayed");
            assertThat(json(promoted).getString("to")).isEqualTo("pending");
            assertThat(app.admin.post(JOBS + "/" + id + "/promote", null).status()).as("no longer delayed").isEqualTo(409);
            assertThat(app.admin.put(JOBS + "/" + id + "/due", "{\"delayMs\":1000}").status()).isEqualTo(409);
            assertThat(app.admin.post(JOBS + "/999999/promote", null).status()).isEqualTo(404);
            assertThat(app.admin.put(JOBS + "/999999/due", "{\"delayMs\":1000}").status()).isEqualTo(404);
            for (int i = 0; i < 100 && !json(app.submitter.get(JOBS + "/" + id)).getString("state").equals("completed"); i++) {
                Thread.sleep(100);
            }
            assertThat(json(app.submitter.get(JOBS + "/" + id)).getString("state")).isEqualTo("completed");
        }

        @Test
        void aRunAtMayBeGivenAsAnIso8601InstantAsTheApiShowsTimes() {
            String held = "/api/queues/held/jobs";
            java.time.Instant inAnHour = java.time.Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            E2eHttp.Response submitted = app.submitter.post(held, "{\"payload\":{\"n\":1},\"runAt\":\"" + inAnHour + "\"}");
            assertThat(submitted.status()).as("%s", submitted).isEqualTo(201);
            assertThat(json(submitted).getString("state")).isEqualTo("delayed");
            String id = json(submitted).getString("id");
            assertThat(java.time.Instant.parse(json(app.submitter.get(held + "/" + id)).getString("dueAt"))).isEqualTo(inAnHour);

            java.time.OffsetDateTime later = inAnHour.plusSeconds(60).atOffset(java.time.ZoneOffset.ofHours(2));
            E2eHttp.Response moved = app.admin.put(held + "/" + id + "/due", "{\"runAt\":\"" + later + "\"}");
            assertThat(moved.status()).as("%s", moved).isEqualTo(200);
            assertThat(java.time.Instant.parse(json(moved).getString("dueAt"))).as("an offset other than Z is the same instant")
                    .isEqualTo(later.toInstant());
            assertThat(app.admin.post(held + "/" + id + "/cancel", null).status()).isEqualTo(200);
        }

        @Test
        void anActiveJobShowsItsProgressAndItsCancelIsRequestedThenSettledByItsLeasesHolder() {
            String held = "/api/queues/held/jobs";
            String id = json(app.submitter.post(held, "{\"payload\":{\"n\":1}}")).getString("id");
            try (RedisClient redis = app.valkeyClient()) {
                QueueClient worker = QueueClient.connect(redis, QueueSettings.DEFAULT);
                io.echomq.queue.ClaimedJob job = worker.leases().claim("held", java.time.Duration.ofSeconds(30), 1, "test-worker").get(0);
                assertThat(job.id()).isEqualTo(id);
                worker.leases().extend(job.lease(), java.time.Duration.ofSeconds(30), new io.echomq.queue.Progress(42, "resizing"));
                JsonObject running = json(app.submitter.get(held + "/" + id));
                assertThat(running.getJsonObject("progress").getInt("percent")).isEqualTo(42);
                assertThat(running.getJsonObject("progress").getString("message")).isEqualTo("resizing");
                assertThat(running.getJsonObject("progress").getInt("attempt")).isEqualTo(1);

                E2eHttp.Response requested = app.admin.post(held + "/" + id + "/cancel", null);
                assertThat(requested.status()).as("%s", requested).isEqualTo(202);
                assertThat(json(requested).getBoolean("cancelRequested")).isTrue();
                assertThat(json(requested).getString("state")).isEqualTo("active");
                assertThat(app.admin.post(held + "/" + id + "/cancel", null).status()).as("asked again").isEqualTo(202);
                assertThat(json(app.submitter.get(held + "/" + id)).getString("cancelRequestedAt")).isNotBlank();

                assertThat(worker.leases().stop(job.lease(), "the handler stopped")).isInstanceOf(io.echomq.queue.StopOutcome.Stopped.class);
                assertThat(json(app.submitter.get(held + "/" + id)).getString("state")).isEqualTo("cancelled");
                assertThat(app.admin.post(held + "/" + id + "/cancel", null).status()).isEqualTo(409);
            }
        }

        @Test
        void finishedJobsCanBeDeletedAndLiveOnesCannot() throws Exception {
            String id = json(app.submitter.post(JOBS, charge("to-delete", 5))).getString("id");
            for (int i = 0; i < 100 && !json(app.submitter.get(JOBS + "/" + id)).getString("state").equals("completed"); i++) {
                Thread.sleep(100);
            }
            assertThat(app.admin.post(JOBS + "/" + id + "/delete", null).status()).isEqualTo(200);
            assertThat(app.submitter.get(JOBS + "/" + id).status()).isEqualTo(404);
            assertThat(app.admin.post(JOBS + "/" + id + "/delete", null).status()).isEqualTo(404);
        }
    }

    /** Recurring jobs over HTTP, on a queue without a handler here (its jobs stay pending). */
    @Nested
    class Schedules {
        static final String QUEUE = "reports";
        private static final String SCHEDULES = "/api/schedules/" + QUEUE;

        @Test
        void aScheduleDeclaredInConfigurationIsListedWithItsNextSlot() throws Exception {
            JsonObject nightly = awaitSchedule("nightly", s -> s.containsKey("nextSlot"));

            assertThat(nightly.getString("cron")).isEqualTo("0 3 * * *");
            assertThat(nightly.getString("zone")).isEqualTo("Europe/Paris");
            assertThat(nightly.getString("source")).isEqualTo("config");
            assertThat(java.time.Instant.parse(nightly.getString("nextSlot")).atZone(java.time.ZoneId.of("Europe/Paris")).getHour())
                    .as("the next slot is at 03:00 in Paris").isEqualTo(3);
            assertThat(names(app.submitter.get("/api/schedules"))).contains(QUEUE + "/nightly");
            assertThat(names(app.submitter.get("/api/schedules?queue=" + QUEUE))).contains(QUEUE + "/nightly");
            assertThat(names(app.submitter.get("/api/schedules?queue=payments"))).doesNotContain(QUEUE + "/nightly");
        }

        @Test
        void aScheduleDefinedOverHttpFiresJobsPauseStopsItAndResumeSkipsWhatCameDueMeanwhile() throws Exception {
            E2eHttp.Response created = app.admin.put(SCHEDULES + "/every-second",
                    "{\"intervalMs\": 1000, \"payload\": {\"report\": \"sales\"}, \"misfire\": \"skip\"}");
            assertThat(created.status()).as("%s", created).isEqualTo(201);
            assertThat(created.header("Location")).hasValueSatisfying(l -> assertThat(l).endsWith(SCHEDULES + "/every-second"));
            assertThat(json(created).getString("source")).isEqualTo("api");

            JsonObject firing = awaitSchedule("every-second", s -> s.getJsonNumber("fired").longValue() >= 2);
            JsonObject lastJob = json(app.submitter.get("/api/queues/" + QUEUE + "/jobs/" + firing.getString("lastJob")));
            assertThat(lastJob.getJsonObject("payload").getString("report")).isEqualTo("sales");
            assertThat(lastJob.getString("idempotencyKey"))
                    .isEqualTo("schedule:every-second:" + java.time.Instant.parse(firing.getString("lastSlot")).toEpochMilli());
            assertThat(firing.getString("lastJobState")).isEqualTo("pending");
            assertThat(firing.getJsonArray("history").stream().map(JsonObject.class::cast)
                    .filter(e -> e.getString("event").equals("fired")).map(e -> e.getString("jobId")).toList())
                    .as("each firing names the job it made").contains(firing.getString("lastJob")).doesNotHaveDuplicates();

            E2eHttp.Response paused = app.admin.post(SCHEDULES + "/every-second/pause", null);
            assertThat(paused.status()).as("%s", paused).isEqualTo(200);
            assertThat(json(paused).getBoolean("paused")).isTrue();
            long firedWhenPaused = json(paused).getJsonNumber("fired").longValue();
            Thread.sleep(3_000);
            assertThat(json(app.submitter.get(SCHEDULES + "/every-second")).getJsonNumber("fired").longValue())
                    .as("a paused schedule fires nothing").isEqualTo(firedWhenPaused);

            E2eHttp.Response resumed = app.admin.post(SCHEDULES + "/every-second/resume", null);
            assertThat(json(resumed).getBoolean("paused")).isFalse();
            JsonObject again = awaitSchedule("every-second", s -> s.getJsonNumber("fired").longValue() > firedWhenPaused);
            assertThat(again.getJsonNumber("skipped").longValue()).as("the slots that came due while paused").isPositive();

            E2eHttp.Response removed = app.admin.delete(SCHEDULES + "/every-second");
            assertThat(removed.status()).as("%s", removed).isEqualTo(200);
            assertThat(app.submitter.get(SCHEDULES + "/every-second").status()).isEqualTo(404);
            assertThat(app.submitter.get("/api/queues/" + QUEUE + "/jobs/" + again.getString("lastJob")).status())
                    .as("its jobs stay").isEqualTo(200);
        }

        /**
         * A submitter who may not define schedules must not be able to replace one: a job posted
         * under the idempotency key of a schedule's next slot would make that slot's firing a
         * duplicate of the submitter's job, and the admin's payload would never run.
         */
        @Test
        void aSubmitterCannotTakeTheNextSlotOfARecurringJob() throws Exception {
            E2eHttp.Response created = app.admin.put(SCHEDULES + "/takeover-target",
                    "{\"intervalMs\": 2000, \"payload\": {\"report\": \"admin\"}, \"misfire\": \"skip\"}");
            assertThat(created.status()).as("%s", created).isEqualTo(201);
            long nextSlot = java.time.Instant.parse(awaitSchedule("takeover-target", s -> s.containsKey("nextSlot"))
                    .getString("nextSlot")).toEpochMilli();

            E2eHttp.Response taken = app.submitter.post("/api/queues/" + QUEUE + "/jobs", "{\"payload\": {\"report\": \"submitter\"}, \"runAt\": " + nextSlot + "}",
                    Map.of("Idempotency-Key", "schedule:takeover-target:" + nextSlot));

            assertRefused(taken, 400, "idempotencyKey");
            JsonObject fired = awaitSchedule("takeover-target", s -> s.containsKey("lastSlot")
                    && java.time.Instant.parse(s.getString("lastSlot")).toEpochMilli() >= nextSlot);
            assertThat(fired.getJsonArray("history").stream().map(JsonObject.class::cast).map(e -> e.getString("event")))
                    .as("the slot fired the schedule's own job").contains("fired").doesNotContain("duplicate");
            JsonObject job = json(app.submitter.get("/api/queues/" + QUEUE + "/jobs/" + fired.getString("lastJob")));
            assertThat(job.getJsonObject("payload").getString("report")).isEqualTo("admin");
            assertThat(app.admin.delete(SCHEDULES + "/takeover-target").status()).isEqualTo(200);
        }

        @Test
        void anUnchangedDefinitionChangesNothingAndAChangedOneReplacesIt() {
            String daily = "{\"cron\": \"30 4 * * *\", \"zone\": \"UTC\"}";
            assertThat(app.admin.put(SCHEDULES + "/replaced", daily).status()).isEqualTo(201);
            E2eHttp.Response same = app.admin.put(SCHEDULES + "/replaced", daily);
            E2eHttp.Response hourly = app.admin.put(SCHEDULES + "/replaced", "{\"cron\": \"0 * * * *\", \"queue\": \"" + QUEUE + "\"}");

            assertThat(same.status()).isEqualTo(200);
            assertThat(json(same).getJsonNumber("version").longValue()).isEqualTo(1);
            assertThat(hourly.status()).isEqualTo(200);
            assertThat(json(hourly).getJsonNumber("version").longValue()).isEqualTo(2);
            assertThat(json(hourly).getString("cron")).isEqualTo("0 * * * *");
            assertThat(app.admin.delete(SCHEDULES + "/replaced").status()).isEqualTo(200);
        }

        @Test
        void aScheduleAsGetAnswersItCanBePutBackUnchanged() {
            String path = SCHEDULES + "/round-trip";
            assertThat(app.admin.put(path, "{\"cron\": \"15 2 * * *\", \"zone\": \"UTC\"}").status()).isEqualTo(201);
            String answered = app.admin.get(path).body();

            E2eHttp.Response putBack = app.admin.put(path, answered);

            assertThat(putBack.status()).as("%s", putBack).isEqualTo(200);
            assertThat(json(putBack).getJsonNumber("version").longValue()).as("nothing changed").isEqualTo(1);
            assertThat(app.admin.delete(path).status()).isEqualTo(200);
        }

        @Test
        void badDefinitionsAreRefusedNamingTheFieldAndDefineNothing() {
            String path = SCHEDULES + "/refused";
            assertRefused(app.admin.put(path, "{\"cron\": \"0 3 * * *\", \"intervalMs\": 1000}"), 400, "intervalMs");
            assertRefused(app.admin.put(path, "{\"payload\": 1}"), 400, "cron");
            assertRefused(app.admin.put(path, "{\"cron\": \"every night\"}"), 400, "cron");
            assertRefused(app.admin.put(path, "{\"cron\": \"0 3 * * *\", \"zone\": \"Mars/Olympus\"}"), 400, "zone");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 5}"), 400, "intervalMs");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000.5}"), 400, "intervalMs");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"misfire\": \"sometimes\"}"), 400, "misfire");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"misfireLimit\": 0}"), 400, "misfireLimit");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"misfireGraceMs\": 500}"), 400, "misfireGraceMs");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"maxAttempts\": 0}"), 400, "maxAttempts");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"lane\": \"a{b}\"}"), 400, "lane");
            assertRefused(app.admin.put(path, "{\"intervalMs\": 1000, \"queue\": \"payments\"}"), 400, "queue");
            assertRefused(app.admin.put(path, "{\"intervalMs\": "), 400, "body");
            assertRefused(app.admin.put(SCHEDULES + "/bad:name", "{\"intervalMs\": 1000}"), 400, "name");
            assertRefused(app.admin.put("/api/schedules/nosuchqueue/refused", "{\"intervalMs\": 1000}"), 404, "queue");
            assertRefused(app.submitter.get("/api/schedules?queue=nosuchqueue"), 404, "queue");
            assertRefused(app.submitter.get(path), 404, "name");
            assertRefused(app.admin.post(path + "/pause", null), 404, "name");
            assertRefused(app.admin.delete(path), 404, "name");

            assertThat(names(app.submitter.get("/api/schedules"))).doesNotContain(QUEUE + "/refused", QUEUE + "/bad:name");
        }

        private List<String> names(E2eHttp.Response list) {
            assertThat(list.status()).as("%s", list).isEqualTo(200);
            return jsonArray(list).stream().map(JsonObject.class::cast).map(s -> s.getString("queue") + "/" + s.getString("name")).toList();
        }

        private JsonObject awaitSchedule(String name, java.util.function.Predicate<JsonObject> until) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            E2eHttp.Response answer;
            do {
                answer = app.submitter.get(SCHEDULES + "/" + name);
                if (answer.status() == 200 && until.test(json(answer))) {
                    return json(answer);
                }
                Thread.sleep(200);
            } while (System.nanoTime() < deadline);
            throw new AssertionError("schedule " + name + " never got there: " + answer);
        }
    }

    static void assertRefused(E2eHttp.Response answer, int status, String field) {
        assertThat(answer.status()).as("%s", answer).isEqualTo(status);
        assertThat(answer.header("Content-Type")).hasValue("application/problem+json");
        JsonObject problem = json(answer);
        assertThat(problem.getInt("status")).isEqualTo(status);
        assertThat(problem.getString("detail")).isNotBlank();
        if (field != null) {
            assertThat(problem.getString("field")).isEqualTo(field);
        }
    }

    /**
     * The queue's job-event stream over HTTP (GET /api/queues/{queue}/events): every state change
     * of a job, in order; a client that hangs up and comes back with Last-Event-ID gets exactly
     * the entries after the last one it got; filters; bad input named.
     */
    @Nested
    class JobEventStream {
        private static final Duration WAIT = Duration.ofSeconds(30);

        private SseStream open(String path, Map<String, String> headers) throws Exception {
            SseStream stream = SseStream.open(app.server.baseUrl(), E2eUsers.SUBMITTER, E2eUsers.SUBMITTER_PASSWORD, path, headers);
            assertThat(stream.status()).isEqualTo(200);
            return stream;
        }

        @Test
        void aJobsStateChangesArriveInOrderFromTheScriptsThatMadeThem() throws Exception {
            E2eHttp.Response submitted = app.submitter.post(JOBS, charge("streamed", 1));
            assertThat(submitted.status()).as("%s", submitted).isEqualTo(201);
            String id = json(submitted).getString("id");

            try (SseStream stream = open("/api/queues/payments/events?from=0&job=" + id, Map.of())) {
                List<SseStream.Event> events = stream.next(3, WAIT);
                assertThat(events).extracting(SseStream.Event::name).containsOnly("job");
                assertThat(events).extracting(e -> e.json().getString("event")).containsExactly("enqueued", "claimed", "completed");
                assertThat(events).extracting(e -> e.json().getString("jobId")).containsOnly(id);
                assertThat(events).extracting(e -> e.json().getString("id")).as("the SSE id is the entry id")
                        .containsExactlyElementsOf(events.stream().map(SseStream.Event::id).toList());
                assertThat(events.get(1).json().getInt("attempt")).isEqualTo(1);
            }
        }

        @Test
        void aClientThatReconnectsWithLastEventIdGetsExactlyTheEntriesAfterIt() throws Exception {
            // On the queue no worker drains, in a lane of this run's own: the only events are these enqueues.
            String lane = "resume-" + System.nanoTime();
            String query = "/api/queues/held/events?from=0&lane=" + lane;
            List<String> submitted = new java.util.ArrayList<>();
            for (int i = 0; i < 30; i++) {
                E2eHttp.Response job = app.submitter.post("/api/queues/held/jobs", "{\"payload\":" + i + ",\"lane\":\"" + lane
                        + "\",\"delayMs\":3600000}");
                assertThat(job.status()).as("%s", job).isEqualTo(201);
                submitted.add(json(job).getString("id"));
            }
            List<SseStream.Event> before;
            try (SseStream stream = open(query, Map.of())) {
                before = stream.next(12, WAIT);
            }
            String resumedFrom = before.get(before.size() - 1).id();
            List<SseStream.Event> after;
            try (SseStream stream = open(query, Map.of("Last-Event-ID", resumedFrom))) {
                after = stream.next(18, WAIT);
            }

            List<String> seen = java.util.stream.Stream.concat(before.stream(), after.stream()).map(e -> e.json().getString("jobId"))
                    .toList();
            long repeated = seen.size() - seen.stream().distinct().count();
            long missed = submitted.stream().filter(job -> !seen.contains(job)).count();
            System.out.println("event-stream resume: read=" + before.size() + " resumed_from=" + resumedFrom + " then="
                    + after.size() + " missed=" + missed + " repeated=" + repeated);
            assertThat(seen).containsExactlyElementsOf(submitted);
            for (String job : submitted) {
                app.admin.post("/api/queues/held/jobs/" + job + "/cancel", null);
            }
        }

        @Test
        void filtersByEventTypeTogether() throws Exception {
            E2eHttp.Response submitted = app.submitter.post(JOBS, charge("filtered", 1));
            String id = json(submitted).getString("id");
            try (SseStream stream = open("/api/queues/payments/events?from=0&job=" + id + "&event=claimed,completed", Map.of())) {
                assertThat(stream.next(2, WAIT)).extracting(e -> e.json().getString("event")).containsExactly("claimed", "completed");
            }
        }

        @Test
        void badFiltersAndIdsGetAProblemNamingTheField() {
            Map<String, String> sse = Map.of("Accept", "text/event-stream");
            String events = "/api/queues/payments/events";
            assertRefused(app.submitter.send("GET", events + "?from=yesterday", null, sse), 400, "from");
            assertRefused(app.submitter.send("GET", events, null, Map.of("Accept", "text/event-stream", "Last-Event-ID", "x-1")), 400,
                    "Last-Event-ID");
            assertRefused(app.submitter.send("GET", events + "?event=exploded", null, sse), 400, "event");
            assertRefused(app.submitter.send("GET", events + "?lane=a:b", null, sse), 400, "lane");
            assertRefused(app.submitter.send("GET", events + "?job=abc", null, sse), 400, "job");
            assertRefused(app.submitter.send("GET", "/api/queues/nosuchqueue/events", null, sse), 404, "queue");
            assertThat(app.anonymous.send("GET", events, null, sse).status()).isEqualTo(401);
        }
    }

    @Nested
    class BadInput {
        private long total() {
            return json(app.submitter.get("/api/queues/payments")).getJsonNumber("total").longValue();
        }

        @Test
        void eachBadRequestGetsAProblemAndEnqueuesNothing() {
            long before = total();

            assertRefused(app.submitter.post(JOBS, "{\"payload\": {\"account\": "), 400, "body");
            // Two submissions run together: answering 201 for the first would drop the second unseen.
            assertRefused(app.submitter.post(JOBS, charge("x", 1) + charge("y", 2)), 400, "body");
            assertRefused(app.submitter.post(JOBS, "{\"lane\":\"x\"}"), 400, "payload");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"delayMs\":-1}"), 400, "delayMs");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"delayMs\":5,\"runAt\":1}"), 400, "runAt");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"runAt\":-1}"), 400, "runAt");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"runAt\":1e999}"), 400, "runAt");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"dedupe\":{\"key\":\"\",\"windowMs\":5,\"mode\":\"throttle\"}}"),
                    400, "dedupe.key");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"dedupe\":{\"key\":\"k\",\"windowMs\":0,\"mode\":\"throttle\"}}"),
                    400, "dedupe.windowMs");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"dedupe\":{\"key\":\"k\",\"windowMs\":5,\"mode\":\"sometimes\"}}"),
                    400, "dedupe.mode");
            assertRefused(app.submitter.post("/api/queues/payments/jobs:batch", "[{\"payload\":1,\"runAt\":-1}]"), 400, "jobs[0].runAt");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"maxAttempts\":\"many\"}"), 400, "maxAttempts");
            assertRefused(app.submitter.post(JOBS, "{\"payload\":1,\"lane\":\"a{b}\"}"), 400, "lane");
            assertRefused(app.submitter.post("/api/queues/nosuchqueue/jobs", charge("x", 1)), 404, "queue");
            assertRefused(app.submitter.post("/api/queues/bad:name/jobs", charge("x", 1)), 400, "queue");
            assertRefused(app.submitter.send("POST", JOBS, "payload=1", Map.of("Content-Type", "text/plain")), 415, null);
            assertRefused(app.submitter.post("/api/queues/payments/jobs:batch", "[" + charge("x", 1) + ",{\"payload\":1,\"lane\":\"b:c\"}]"),
                    400, "jobs[1].lane");
            assertRefused(app.submitter.get(JOBS + "?state=sleeping"), 400, "state");
            assertRefused(app.submitter.get(JOBS + "/12x"), 400, "id");

            assertThat(total()).as("nothing was enqueued").isEqualTo(before);
        }

        /**
         * Scenario 12 of the reliability suite: every request refused with a 4xx (or the connection
         * closed), none enqueued; a bad field of a body is a 400 naming it, and no answer shows a
         * Java class name or an object's identity hash.
         */
        @Test
        void aGeneratedCorpusOfMalformedRequestsGetsNoServerErrorAndEnqueuesNothing() throws Exception {
            List<MalformedRequests.Request> corpus = MalformedRequests.corpus();
            long before = total();
            Map<Integer, Integer> statuses = new TreeMap<>();
            List<String> serverErrors = new ArrayList<>();
            List<String> fieldNotNamed = new ArrayList<>();
            List<String> internalsShown = new ArrayList<>();
            int closedByServer = 0;
            for (MalformedRequests.Request request : corpus) {
                try {
                    E2eHttp.Response answer = request.sendAs(app.submitter, app.admin);
                    statuses.merge(answer.status(), 1, Integer::sum);
                    if (answer.status() >= 500 || answer.status() < 400) {
                        serverErrors.add(request + " -> " + answer);
                    }
                    if (request.field() != null && !namesTheField(answer, request.field())) {
                        fieldNotNamed.add(request + " -> " + answer);
                    }
                    if (JAVA_INTERNALS.matcher(answer.body()).find()) {
                        internalsShown.add(request + " -> " + answer);
                    }
                } catch (UncheckedIOException refusedOnTheWire) {
                    closedByServer++;
                }
            }
            long enqueued = total() - before;

            checkedWithoutSubmissions("bad-input-corpus", corpus.size())
                        .with("requests", corpus.size())
                        .with("not_4xx", serverErrors.size())
                        .with("closed", closedByServer)
                        .with("field_not_named", fieldNotNamed.size())
                        .with("internals_shown", internalsShown.size())
                        .with("enqueued", enqueued)
                        .with("statuses", statuses.toString().replace(" ", ""))
                        .print();
            org.assertj.core.api.SoftAssertions.assertSoftly(softly -> {
                softly.assertThat(corpus).hasSizeGreaterThanOrEqualTo(500);
                softly.assertThat(serverErrors).as("answers other than 4xx").isEmpty();
                softly.assertThat(fieldNotNamed).as("bad fields not answered 400 naming the field").isEmpty();
                softly.assertThat(internalsShown).as("answers showing a Java class name or an identity hash").isEmpty();
                softly.assertThat(enqueued).as("garbage enqueued").isZero();
            });
        }

        /** A qualified class name ({@code java.lang.ClassCastException}), an exception's name, or {@code Object.toString}'s {@code @3ed7ee05}. */
        private static final java.util.regex.Pattern JAVA_INTERNALS = java.util.regex.Pattern.compile(
                "\\b(?:[a-z][a-z0-9_]*\\.){2,}[A-Z]\\w*|\\w+(?:Exception|Error)\\b|@[0-9a-f]{6,8}\\b");

        /** A 400 problem whose field is {@code field} and whose detail says what it accepts under that name. */
        private static boolean namesTheField(E2eHttp.Response answer, String field) {
            if (answer.status() != 400 || !answer.header("Content-Type").orElse("").startsWith("application/problem+json")) {
                return false;
            }
            JsonObject problem = json(answer);
            return field.equals(problem.getString("field", null)) && problem.getString("detail", "").contains(field);
        }

        @Test
        void aBodyOverTheLimitIsRefusedWithoutBeingRead() {
            long before = total();
            String huge = "{\"payload\":\"" + "a".repeat(3 * 1024 * 1024) + "\"}";

            assertRefused(app.submitter.post(JOBS, huge), 413, "body");
            assertRefused(app.submitter.sendChunked("POST", JOBS, huge), 413, "body");
            assertThat(total()).isEqualTo(before);
        }
    }

    /** Last, so it sees every answer the other tests got. */
    @Nested
    @Order(Integer.MAX_VALUE)
    class Contract {
        @Test
        void theServedOpenApiDocumentIsTheWarsContract() {
            ContractChecks.servedAsWritten(app);
        }

        @Test
        void everyAnswerTheseTestsGotIsOneTheContractDeclares() {
            ContractChecks.everyAnswerDeclared(app);
        }
    }
}
