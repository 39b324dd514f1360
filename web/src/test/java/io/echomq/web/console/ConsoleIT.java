package io.echomq.web.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.outbox.OutboxCommand;
import io.echomq.queue.outbox.OutboxDeadRow;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.appserver.AppServer;
import io.echomq.web.E2eDeployment;
import io.echomq.web.E2eUsers;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import redis.clients.jedis.RedisClient;

/**
 * The admin console in a real headless Chromium, against the packaged WAR on Payara Micro with real
 * Valkey and PostgreSQL: what an operator sees and does. Screenshots of each page go to
 * {@code target/screenshots/}; the overview and the lab are copied to {@code docs/}.
 */
@WithRealServices
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {

    private static final String ADMIN = E2eUsers.ADMIN;
    private static final String ADMIN_PASSWORD = E2eUsers.ADMIN_PASSWORD;
    private static final String SUBMITTER = E2eUsers.SUBMITTER;
    private static final String SUBMITTER_PASSWORD = E2eUsers.SUBMITTER_PASSWORD;
    /** A queue that accepts jobs but that no handler consumes here: its counts only move when we submit. */
    private static final String IDLE = "console-idle";
    /** Another such queue, for the schedules' jobs (so the idle queue's counts move only when we submit). */
    private static final String REPORTS = "console-reports";
    private static final String VALID = "{\"account\":\"a-1\",\"amountCents\":500}";
    private static final String INVALID = "{\"account\":\"a\",\"amountCents\":-1}";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static final Path TARGET = Path.of(System.getProperty("java.io.tmpdir", "target"));
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final Path DOCS = Path.of("..", "docs");

    private static AppServer payara;
    private static E2eDeployment deployment;
    private static ChromeDriver browser;
    private static ConsoleApi submitter;
    private static ConsoleApi admin;
    private static String console;
    /** The one Valkey the WAR is given, as its address reads: the master every shard of a queue shows here. */
    private static String valkeyAddress;

    @BeforeAll
    static void deployAndSignIn(ValkeyService valkey, PostgresService postgres) throws Exception {
        // The browser first: a machine without one fails here, before a server is started.
        browser = ConsoleBrowser.start(TARGET.resolve("console-it"));
        valkeyAddress = valkey.host() + ":" + valkey.port();
        deployment = new E2eDeployment(valkey, postgres, 5, Map.of("ECHOMQ_QUEUES", IDLE + "," + REPORTS,
                "ECHOMQ_SCHEDULES", "nightly", "ECHOMQ_SCHEDULES_NIGHTLY_QUEUE", REPORTS, "ECHOMQ_SCHEDULES_NIGHTLY_CRON", "0 3 * * *"));
        payara = deployment.server;
        submitter = new ConsoleApi(payara.baseUrl(), SUBMITTER, SUBMITTER_PASSWORD);
        admin = new ConsoleApi(payara.baseUrl(), ADMIN, ADMIN_PASSWORD);
        console = payara.baseUrl().replaceAll("/$", "") + "/console/";

        // No identity provider is configured: the console sends the browser to its own login page.
        browser.get(console);
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().endsWith("/console/login.html"));
        signInOnTheLoginPage(ADMIN, ADMIN_PASSWORD);
    }

    @AfterAll
    static void screenshotTheOverviewAndStop() throws IOException {
        try {
            if (browser != null && payara != null) {
                open("/");
                waitFor(By.cssSelector("[data-testid=chart][data-queue=payments] svg"));
                Path overview = ConsoleBrowser.screenshot(browser, SCREENSHOTS, "overview-end");
                copyToDocs(overview, "console-overview.png");
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
            if (payara != null) {
                payara.stop();
            }
        }
    }

    @AfterEach
    void noScriptErrors() {
        List<String> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue())
                .map(entry -> entry.getMessage())
                // A 404/409 answered to a request the test provoked is logged by the browser too; CSP or script errors are not tolerated.
                .filter(message -> message.contains("Content Security Policy") || message.contains("Uncaught"))
                .toList();
        assertThat(severe).as("CSP violations or uncaught script errors in the console").isEmpty();
    }

    @Test
    @Order(1)
    void signingInShowsTheOverviewWithEveryQueue() {
        open("/");
        WebElement payments = waitFor(By.cssSelector("[data-testid=queue-card][data-queue=payments]"));
        assertThat(payments.findElement(By.cssSelector("[data-testid=queue-link]")).getText()).isEqualTo("payments");
        assertThat(browser.findElements(By.cssSelector("[data-testid=queue-card][data-queue=" + IDLE + "]"))).hasSize(1);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(ADMIN);
        // Charts appear per queue once it has finished a job this hour; until then the section says so.
        waitUntil(d -> !text(By.cssSelector("[data-testid=charts]")).startsWith("Loading"));
        screenshot("overview");
    }

    @Test
    @Order(2)
    void countsMoveLiveWhenJobsAreSubmitted() {
        open("/");
        waitUntil(d -> "live".equals(text(By.cssSelector("[data-testid=live-status]"))));
        By pending = By.cssSelector("[data-queue=" + IDLE + "] [data-testid=count-pending]");
        long before = Long.parseLong(text(pending).replace(",", ""));
        for (int i = 0; i < 3; i++) {
            submitter.submit(IDLE, "{\"n\":" + i + "}");
        }
        // No reload and no navigation: the Server-Sent Events stream brings the new counts.
        waitUntil(d -> text(pending).replace(",", "").equals(String.valueOf(before + 3)));
        assertThat(browser.getCurrentUrl()).endsWith("#/");
    }

    @Test
    @Order(3)
    void aJobsDetailShowsItsAttemptsAndItsEffect() throws Exception {
        String id = submitter.submit("payments", VALID);
        submitter.awaitState("payments", id, "completed", WAIT);

        open("/jobs/payments/" + id);
        assertThat(waitFor(By.cssSelector("[data-testid=job-state]")).getText()).isEqualTo("completed");
        assertThat(text(By.cssSelector("[data-testid=job-attempts]"))).isEqualTo("1 of 5");
        assertThat(text(By.cssSelector("[data-testid=effect-row]"))).startsWith("Effect: applied by attempt 1 at ");
        WebElement attempt = waitFor(By.cssSelector("[data-testid=attempt][data-attempt='1']"));
        assertThat(attempt.findElement(By.cssSelector("[data-testid=attempt-outcome]")).getText()).isEqualTo("completed");
        assertThat(attempt.getText().toLowerCase(java.util.Locale.ROOT))
                .contains("applied by this attempt").contains("claimed at").contains("lease deadline (server clock)").contains("vm-");
        assertThat(text(By.cssSelector("[data-testid=why-summary]"))).isEqualTo("Delivered once: attempt 1: completed, effect applied.");
        assertThat(text(By.cssSelector("[data-testid=payload]"))).contains("\"amountCents\": 500");
        screenshot("job-completed");
    }

    /**
     * From a grandchild's page the whole flow shows, root to leaves: each job's state, its
     * committed result, which children a parent still waits for, with links to each job.
     */
    @Test
    @Order(3)
    void aFlowsWholeTreeShowsFromAnyOfItsJobsWithStatesResultsAndWhatEachParentWaitsFor() throws Exception {
        String receipt = "{\"account\":\"a-flow\",\"amountCents\":700,\"receipt\":true}";
        ConsoleApi.Response made = submitter.post("/api/flows", "{\"queue\":\"" + IDLE + "\",\"payload\":{\"summary\":1},\"children\":["
                + "{\"queue\":\"payments\",\"payload\":" + receipt + "},"
                + "{\"queue\":\"" + IDLE + "\",\"payload\":{\"inner\":1},\"children\":[{\"queue\":\"payments\",\"payload\":" + VALID + "}]}]}");
        assertThat(made.status()).as(made.body()).isEqualTo(201);
        String root = made.object().getString("id");
        JsonObject rootFlow = admin.get("/api/flows/" + IDLE + "/" + root).object();
        String charged = rootFlow.getJsonArray("children").getJsonObject(0).getString("id");
        String inner = rootFlow.getJsonArray("children").getJsonObject(1).getString("id");
        String leaf = admin.get("/api/flows/" + IDLE + "/" + inner).object().getJsonArray("children").getJsonObject(0).getString("id");
        submitter.awaitState("payments", charged, "completed", WAIT);
        submitter.awaitState("payments", leaf, "completed", WAIT);
        submitter.awaitState(IDLE, inner, "pending", WAIT);

        open("/jobs/payments/" + leaf);

        WebElement rootNode = waitFor(By.cssSelector("[data-testid=flow-tree] > [data-testid=flow-node][data-id='" + root + "']"));
        assertThat(rootNode.findElement(By.cssSelector("[data-testid=flow-node][data-id='" + inner + "']")).getAttribute("data-state")).isEqualTo("pending");
        assertThat(rootNode.getAttribute("data-state")).as("the root waits for its inner parent").isEqualTo("waiting-children");
        WebElement chargedNode = rootNode.findElement(By.cssSelector("[data-testid=flow-node][data-id='" + charged + "']"));
        assertThat(chargedNode.getAttribute("data-state")).isEqualTo("completed");
        assertThat(chargedNode.getAttribute("data-waited-for")).isEqualTo("false");
        assertThat(chargedNode.findElement(By.cssSelector("[data-testid=flow-result]")).getText()).contains("\"amountCents\":700");
        WebElement innerNode = rootNode.findElement(By.cssSelector("[data-testid=flow-node][data-id='" + inner + "']"));
        assertThat(innerNode.getAttribute("data-waited-for")).as("the root still waits for its inner parent").isEqualTo("true");
        WebElement leafNode = innerNode.findElement(By.cssSelector("[data-testid=flow-node][data-id='" + leaf + "']"));
        assertThat(leafNode.getAttribute("aria-current")).as("the job whose page this is").isEqualTo("true");
        assertThat(leafNode.findElements(By.cssSelector("[data-testid=flow-result]"))).as("a plain charge sets no result").isEmpty();

        chargedNode.findElement(By.cssSelector("[data-testid=flow-node-link]")).click();
        waitUntil(d -> text(By.cssSelector("[data-testid=job-result]")).contains("\"amountCents\": 700"));
        ConsoleBrowser.screenshot(browser, SCREENSHOTS, "flow-tree");
    }

    /** The demo's receipt sets the charge as the job's result; a plain charge has none. */
    @Test
    @Order(3)
    void aJobsDetailShowsItsResult() throws Exception {
        String id = submitter.submit("payments", "{\"account\":\"a-receipt\",\"amountCents\":300,\"receipt\":true}");
        submitter.awaitState("payments", id, "completed", WAIT);
        String plain = submitter.submit("payments", VALID);
        submitter.awaitState("payments", plain, "completed", WAIT);

        open("/jobs/payments/" + id);
        assertThat(waitFor(By.cssSelector("[data-testid=job-state]")).getText()).isEqualTo("completed");
        assertThat(text(By.cssSelector("[data-testid=job-result]"))).contains("\"amountCents\": 300")
                .contains("\"chargedByJob\": \"" + id + "\"");
        open("/jobs/payments/" + plain);
        // The page of the other job replaces this one's: wait for its own result line.
        waitUntil(d -> text(By.cssSelector("[data-testid=job-result]")).equals("No result: the handler set none."));
    }

    @Test
    @Order(4)
    void aJobWhoseKeyAnotherJobAppliedNamesThatJobAsItsEffect() throws Exception {
        String first = submitter.submit("payments", VALID, "console-order-1");
        submitter.awaitState("payments", first, "completed", WAIT);
        // Deleting the job frees its key in Valkey; the effect store still holds it.
        assertThat(admin.post("/api/queues/payments/jobs/" + first + "/delete", null).status()).isEqualTo(200);
        String again = submitter.submit("payments", VALID, "console-order-1");
        assertThat(again).isNotEqualTo(first);
        submitter.awaitState("payments", again, "completed", WAIT);

        open("/jobs/payments/" + again);
        assertThat(waitFor(By.cssSelector("[data-testid=job-state]")).getText()).isEqualTo("completed");
        assertThat(text(By.cssSelector("[data-testid=effect-row]")))
                .startsWith("Effect: applied by job #" + first + " (submitted with the same idempotency key), attempt 1 at ")
                .endsWith("this job's handler does not run.");
        assertThat(browser.findElement(By.cssSelector("[data-testid=effect-job-link]")).getAttribute("href"))
                .endsWith("#/jobs/payments/" + first);
        WebElement attempt = waitFor(By.cssSelector("[data-testid=attempt][data-attempt='1']"));
        assertThat(attempt.getText()).contains("not applied by this attempt");
    }

    @Test
    @Order(4)
    void aDeadJobIsRetriedFromTheConsole() throws Exception {
        String id = submitter.submit("payments", INVALID);
        JsonObject dead = submitter.awaitState("payments", id, "dead", WAIT);
        assertThat(dead.getInt("attempts")).isEqualTo(1);

        open("/queues/payments/dead");
        WebElement box = waitFor(By.cssSelector("[data-testid=select-job][data-id='" + id + "']"));
        screenshot("queue-dead");
        box.click();
        assertThat(text(By.cssSelector("[data-testid=selected-count]"))).isEqualTo("1 selected");
        click(By.cssSelector("[data-testid=bulk-retry]"));
        WebElement dialog = waitFor(By.id("confirm-dialog"));
        assertThat(dialog.getText()).contains("Retry 1 dead job(s)");
        screenshot("queue-confirm-retry");
        click(By.id("confirm-ok"));
        awaitNotice("1 job(s) sent back to pending.");

        // The invalid payload fails again: a second attempt, dead again, both attempts in the timeline.
        long deadline = System.nanoTime() + WAIT.toNanos();
        JsonObject job = submitter.job("payments", id);
        while ((job.getInt("attempts") < 2 || !"dead".equals(job.getString("state"))) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            job = submitter.job("payments", id);
        }
        assertThat(job.getInt("attempts")).isEqualTo(2);
        open("/jobs/payments/" + id);
        waitFor(By.cssSelector("[data-testid=attempt][data-attempt='2']"));
        assertThat(text(By.cssSelector("[data-testid=why-summary]"))).startsWith("Delivered 2 times: attempt 1: failed; dead-lettered")
                .contains("; then requeued with a fresh budget; then attempt 2: failed; dead-lettered");
        assertThat(browser.findElements(By.cssSelector("[data-event=requeued]"))).hasSize(1);
        screenshot("job-dead-twice");
    }

    @Test
    @Order(4)
    void aDeadOutboxRowIsShownWithItsErrorAndRetriedAfterConfirming() {
        // What a resource adapter's relay reports at its sweeps (this WAR has no access to the outbox's database).
        String source = "jdbc/console-orders";
        long now = System.currentTimeMillis();
        try (RedisClient redis = deployment.valkeyClient()) {
            QueueClient relay = QueueClient.connect(redis, QueueSettings.DEFAULT);
            relay.outboxAdmin().publishGauge(source, 0, 0, Duration.ofMinutes(5));
            relay.outboxAdmin().publishDeadRows(source, 1, List.of(new OutboxDeadRow(7, "orders", 10,
                    "InvalidRequestException: payload: must be at most 16 bytes", now - 60_000, now)), Duration.ofMinutes(5));

            open("/");
            WebElement row = waitFor(By.cssSelector("[data-testid=dead-rows][data-source='" + source + "'] [data-testid=dead-row][data-id='7']"));
            assertThat(row.findElement(By.cssSelector("[data-testid=dead-row-error]")).getText()).contains("must be at most 16 bytes");
            assertThat(text(By.cssSelector("[data-testid=outbox][data-source='" + source + "'] [data-testid=outbox-dead]"))).isEqualTo("1");
            screenshot("overview-dead-outbox-row");
            click(By.cssSelector("[data-testid=dead-row][data-id='7'] [data-testid=dead-row-retry]"));
            assertThat(waitFor(By.id("confirm-dialog")).getText()).contains("Retry outbox row 7");
            click(By.id("confirm-ok"));
            awaitNotice("row 7: retry requested");

            assertThat(relay.outboxAdmin().requested(source)).as("left in Valkey for the relays").containsEntry(7L, OutboxCommand.RETRY);
            waitFor(By.cssSelector("[data-testid=dead-row][data-id='7'] [data-testid=dead-row-requested]"));
        }
    }

    @Test
    @Order(4)
    void aDeadJobIsDeletedFromItsPageAfterConfirming() throws Exception {
        String id = submitter.submit("payments", INVALID);
        submitter.awaitState("payments", id, "dead", WAIT);
        open("/jobs/payments/" + id);
        click(By.cssSelector("[data-testid=job-delete]"));
        waitFor(By.id("confirm-dialog"));
        click(By.id("confirm-cancel"));
        assertThat(submitter.get("/api/queues/payments/jobs/" + id).status()).as("cancelled dialog: nothing deleted").isEqualTo(200);

        click(By.cssSelector("[data-testid=job-delete]"));
        waitFor(By.id("confirm-dialog"));
        click(By.id("confirm-ok"));
        awaitNotice("Job #" + id + ": dead → deleted.");
        waitUntil(d -> d.getCurrentUrl().endsWith("#/queues/payments/dead"));
        assertThat(submitter.get("/api/queues/payments/jobs/" + id).status()).isEqualTo(404);
    }

    @Test
    @Order(4)
    void aDelayedJobShowsItsDueTimeAndIsRunNowAfterConfirming() throws Exception {
        String id = admin.post("/api/queues/" + IDLE + "/jobs", "{\"payload\":{\"n\":\"later\"},\"delayMs\":3600000}")
                .object().getString("id");
        open("/jobs/" + IDLE + "/" + id);
        waitFor(By.cssSelector("[data-testid=job-due-input]"));
        assertThat(text(By.cssSelector("[data-testid=job-due-at]"))).isNotEqualTo("—");

        click(By.cssSelector("[data-testid=job-promote]"));
        waitFor(By.id("confirm-dialog"));
        click(By.id("confirm-ok"));
        awaitNotice("Job #" + id + ": delayed → pending.");
        assertThat(submitter.job(IDLE, id).getString("state")).isEqualTo("pending");
        assertNoAlert();
    }

    @Test
    @Order(4)
    void aRunningJobShowsItsProgressLiveAndItsCancelIsRequestedFromItsPage() throws Exception {
        String id = submitter.submit(IDLE, "{\"n\":\"running\"}");
        try (redis.clients.jedis.RedisClient redis = deployment.valkeyClient()) {
            io.echomq.queue.QueueClient worker = io.echomq.queue.QueueClient.connect(redis, io.echomq.queue.QueueSettings.DEFAULT);
            io.echomq.queue.ClaimedJob job = null;
            for (io.echomq.queue.ClaimedJob claimed : worker.leases().claim(IDLE, Duration.ofMinutes(2), 1_000, "console-test")) {
                if (claimed.id().equals(id)) {
                    job = claimed;
                } else {
                    worker.leases().retry(claimed.lease(), "not this test's", io.echomq.queue.Backoff.NONE, io.echomq.queue.FailureKind.CONTENDED);
                }
            }
            assertThat(job).as("the test holds the job's lease").isNotNull();
            open("/jobs/" + IDLE + "/" + id);
            worker.leases().extend(job.lease(), Duration.ofMinutes(2), new io.echomq.queue.Progress(42, "resizing"));
            waitUntil(d -> text(By.cssSelector("[data-testid=job-progress]")).contains("42% · resizing"));

            click(By.cssSelector("[data-testid=job-cancel]"));
            waitFor(By.id("confirm-dialog"));
            click(By.id("confirm-ok"));
            awaitNotice("Job #" + id + ": cancel requested");
            waitFor(By.cssSelector("[data-testid=job-cancel-requested]"));
            assertThat(submitter.job(IDLE, id).getString("state")).isEqualTo("active");

            worker.leases().stop(job.lease(), "the handler stopped");
            waitUntil(d -> text(By.cssSelector("[data-testid=job-state]")).equals("cancelled"));
        }
        assertNoAlert();
    }

    @Test
    @Order(4)
    void anAdminSetsTheQueuesLimitsInTheConsoleAndPendingJobsShowTheirPriority() {
        String urgent = admin.post("/api/queues/" + IDLE + "/jobs", "{\"payload\":{\"n\":\"urgent\"},\"priority\":9}")
                .object().getString("id");
        try {
            open("/queues/" + IDLE + "/pending");
            waitUntil(d -> text(By.cssSelector("[data-testid=queue-limits]")).equals("No caps or rate limits."));
            click(By.cssSelector("[data-testid=limits-editor] summary"));
            browser.findElement(By.cssSelector("[data-testid=limit-laneMaxActive]")).sendKeys("2");
            browser.findElement(By.cssSelector("[data-testid=limit-rateStarts]")).sendKeys("100");
            browser.findElement(By.cssSelector("[data-testid=limit-rateWindowMs]")).sendKeys("1000");
            click(By.cssSelector("[data-testid=limits-save]"));
            awaitNotice("Limits of " + IDLE + " saved.");

            jakarta.json.JsonObject limits = admin.get("/api/queues/" + IDLE + "/limits").object();
            assertThat(limits.getInt("laneMaxActive")).isEqualTo(2);
            assertThat(limits.getJsonObject("rate").getInt("starts")).isEqualTo(100);
            assertThat(limits.containsKey("maxActive")).as("an empty field is no limit").isFalse();
            waitUntil(d -> text(By.cssSelector("[data-testid=queue-limits]"))
                    .startsWith("Limits: at most 100 started per 1.0 s · per lane at most 2 active."));
            assertThat(admin.get("/api/queues/" + IDLE).object().getString("limitsSource")).isEqualTo("api");
            waitUntil(d -> text(By.cssSelector("[data-testid=queue-limits]")).contains("(set over the API; they stand until the "
                    + "configuration changes its limits.)"));
            waitUntil(d -> text(By.cssSelector("tr[data-id='" + urgent + "'] [data-testid=job-priority]")).equals("9"));
            screenshot("queue-limits");
        } finally {
            admin.put("/api/queues/" + IDLE + "/limits", "{}");
        }
        assertThat(admin.get("/api/queues/" + IDLE + "/limits").object()).isEmpty();
        assertNoAlert();
    }

    @Test
    @Order(4)
    void theQueuePageShowsItsJobEventsLiveAndFiltersThem() {
        open("/queues/" + IDLE);
        waitUntil(d -> "live".equals(text(By.cssSelector("[data-testid=job-events-status]"))));
        String first = admin.post("/api/queues/" + IDLE + "/jobs", "{\"payload\":{\"n\":\"live\"},\"lane\":\"eu\"}").object().getString("id");
        // No reload: the queue's job-event stream brings the enqueue.
        waitFor(By.cssSelector("[data-testid=job-event][data-job='" + first + "'][data-event=enqueued]"));

        browser.findElement(By.id("job-events-lane")).sendKeys("us");
        click(By.cssSelector("[data-testid=job-events-apply]"));
        waitUntil(d -> "live".equals(text(By.cssSelector("[data-testid=job-events-status]"))));
        String other = admin.post("/api/queues/" + IDLE + "/jobs", "{\"payload\":{\"n\":\"eu\"},\"lane\":\"eu\"}").object().getString("id");
        String wanted = admin.post("/api/queues/" + IDLE + "/jobs", "{\"payload\":{\"n\":\"us\"},\"lane\":\"us\"}").object().getString("id");
        waitFor(By.cssSelector("[data-testid=job-event][data-job='" + wanted + "'][data-event=enqueued]"));
        // The stream keeps order: the lane-eu job, submitted before, would be shown by now were it not filtered out.
        assertThat(browser.findElements(By.cssSelector("[data-testid=job-event][data-job='" + other + "']"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("[data-testid=job-event]"))).as("the list starts afresh with a filter").hasSize(1);
        screenshot("queue-job-events");
        for (String id : List.of(first, other, wanted)) {
            admin.post("/api/queues/" + IDLE + "/jobs/" + id + "/cancel", null);
        }
    }

    @Test
    @Order(4)
    void theQueuePageShowsItsOneShardWithItsMasterAndCountsRefreshedWithThePage() {
        open("/queues/" + IDLE);

        WebElement shard = waitFor(By.cssSelector("[data-testid=shard-row][data-shard='0']"));
        assertThat(browser.findElements(By.cssSelector("[data-testid=shard-row]"))).as("a queue of one shard").hasSize(1);
        assertThat(shard.findElement(By.cssSelector("[data-testid=shard-tag]")).getText()).isEqualTo(IDLE);
        assertThat(shard.findElement(By.cssSelector("[data-testid=shard-master]")).getText()).isEqualTo(valkeyAddress);
        assertThat(shard.findElement(By.cssSelector("[data-testid=shard-paused]")).getText()).isEqualTo("no");
        assertThat(shard.findElement(By.cssSelector("[data-testid=shard-settings]")).getText()).as("no settings copies on one shard").isEqualTo("—");
        By pending = By.cssSelector("[data-testid=shard-row][data-shard='0'] [data-testid=shard-pending]");
        long before = admin.get("/api/queues/" + IDLE).object().getJsonObject("counts").getJsonNumber("pending").longValue();
        String id = submitter.submit(IDLE, "{\"n\":\"shards\"}");
        // No reload: the shards refresh with the rest of the page.
        waitUntil(d -> text(pending).replace(",", "").equals(String.valueOf(before + 1)));
        screenshot("queue-shards");
        admin.post("/api/queues/" + IDLE + "/jobs/" + id + "/cancel", null);

        // The same read over HTTP: a submitter may read it as the queue's counts; an unknown queue is a problem naming it.
        ConsoleApi.Response read = submitter.get("/api/queues/" + IDLE + "/shards");
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(read.object().getJsonArray("shards").getJsonObject(0).getString("master")).isEqualTo(valkeyAddress);
        ConsoleApi.Response unknown = submitter.get("/api/queues/no-such-queue/shards");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.object().getString("field")).isEqualTo("queue");
    }

    @Test
    @Order(4)
    void aQueueIsPausedAfterConfirmingAndResumed() {
        open("/queues/" + IDLE);
        click(By.cssSelector("[data-testid=pause-toggle]"));
        waitFor(By.id("confirm-dialog"));
        click(By.id("confirm-ok"));
        waitUntil(d -> "Resume".equals(text(By.cssSelector("[data-testid=pause-toggle]"))));
        assertThat(admin.get("/api/queues/" + IDLE).object().getBoolean("paused")).isTrue();
        screenshot("queue-paused");
        click(By.cssSelector("[data-testid=pause-toggle]"));
        waitUntil(d -> "Pause".equals(text(By.cssSelector("[data-testid=pause-toggle]"))));
        assertThat(admin.get("/api/queues/" + IDLE).object().getBoolean("paused")).isFalse();
    }

    @Test
    @Order(5)
    void theConsoleIsUsableFromTheKeyboardWithAVisibleFocus() {
        open("/");
        WebElement lab = browser.findElement(By.cssSelector("[data-nav=lab]"));
        // Start where a keyboard user starts: the top of the page (the skip link).
        ((JavascriptExecutor) browser).executeScript("document.querySelector('.skip-link').focus()");
        WebElement focused = browser.switchTo().activeElement();
        for (int i = 0; i < 8 && !lab.equals(focused); i++) {
            new org.openqa.selenium.interactions.Actions(browser).sendKeys(org.openqa.selenium.Keys.TAB).perform();
            focused = browser.switchTo().activeElement();
        }
        assertThat(focused).as("the lab link is reached with Tab").isEqualTo(lab);
        assertThat(focused.getCssValue("outline-style")).as("a visible focus ring").isNotEqualTo("none");
        focused.sendKeys(org.openqa.selenium.Keys.ENTER);
        waitFor(By.cssSelector("[data-testid=lab-form]"));
        assertThat(browser.getCurrentUrl()).endsWith("#/lab");
    }

    @Test
    @Order(5)
    void aPayloadWithMarkupIsShownAsText() {
        String markup = "<script>alert(1)</script><img src=x id=injected>";
        String id = submitter.submit(IDLE, "{\"note\":\"" + markup.replace("\"", "\\\"") + "\"}");
        open("/jobs/" + IDLE + "/" + id);
        WebElement payload = waitFor(By.cssSelector("[data-testid=payload]"));
        assertThat(payload.getText()).contains("<script>alert(1)</script><img src=x id=injected>");
        assertThat(payload.findElements(By.xpath(".//*"))).as("no element parsed from the payload").isEmpty();
        assertThat(browser.findElements(By.id("injected"))).isEmpty();
        assertThat(((JavascriptExecutor) browser).executeScript("return document.scripts.length")).isEqualTo(1L);
        assertNoAlert();
        screenshot("job-markup-payload");
    }

    @Test
    @Order(6)
    void theWorkersPageListsTheLeasesHeldNow() {
        open("/workers");
        waitUntil(d -> !d.findElements(By.cssSelector("[data-testid=workers-table], [data-testid=no-leases]")).isEmpty());
        assertThat(text(By.cssSelector("[data-testid=workers-updated]"))).startsWith("updated ");
        screenshot("workers");
    }

    @Test
    @Order(6)
    void theSchedulesPageListsEachScheduleWithItsLastJobAndPausesOneAfterConfirming() {
        assertThat(admin.put("/api/schedules/" + REPORTS + "/every-second", "{\"intervalMs\":1000,\"payload\":{\"report\":\"console\"}}")
                .status()).isEqualTo(201);
        open("/schedules");
        By nightly = By.cssSelector("[data-testid=schedule-row][data-name=nightly]");
        By everySecond = By.cssSelector("[data-testid=schedule-row][data-name=every-second]");
        assertThat(waitFor(nightly).findElement(By.cssSelector("[data-testid=schedule-when]")).getText()).isEqualTo("0 3 * * *");
        // The page refreshes itself: the first firing's job appears in the row, as a link.
        waitUntil(d -> !d.findElement(everySecond).findElements(By.cssSelector("a[data-testid=schedule-job]")).isEmpty());
        screenshot("schedules");

        // The table may be rebuilt by a refresh between finding and clicking: find it afresh until the click lands.
        waitUntil(d -> {
            d.findElement(everySecond).findElement(By.cssSelector("[data-testid=schedule-pause-toggle]")).click();
            return true;
        });
        click(By.id("confirm-ok"));
        waitUntil(d -> "paused".equals(d.findElement(everySecond).findElement(By.cssSelector("[data-testid=schedule-state]")).getText()));
        assertThat(admin.get("/api/schedules/" + REPORTS + "/every-second").object().getBoolean("paused")).isTrue();

        open("/schedules/" + REPORTS + "/every-second");
        By firedJob = By.cssSelector("[data-testid=firing-row][data-event=fired] a[data-testid=schedule-job]");
        String job = waitFor(firedJob).getText().replace("#", "");
        screenshot("schedule");
        click(firedJob);
        waitUntil(d -> d.getCurrentUrl().endsWith("#/jobs/" + REPORTS + "/" + job));
        assertThat(waitFor(By.cssSelector("[data-testid=payload]")).getText()).contains("console");
    }

    /**
     * Blank cells are not part of the expectation for that mode. At-most-once acknowledges before
     * the work, so its job is lost with no effect applied even though the queue records it completed.
     */
    @ParameterizedTest(name = "{0}, crash at effect: lost {1}, deliveries {2}, effects applied {3}, completed {4}")
    @Order(7)
    @CsvSource({
        "at-most-once,  1,  , 0,  ",
        "at-least-once, 0,  , 2,  ",
        "effect-store,  0, 2, 1, 1",
    })
    void theLabShowsWhatACrashAtTheEffectCosts(String mode, Integer lost, Integer deliveries, Integer effects, Integer completed)
            throws IOException {
        open("/lab");
        click(By.cssSelector("[data-testid=lab-mode-" + mode + "]"));
        click(By.cssSelector("[data-testid=lab-crashPoint-effect]"));
        click(By.cssSelector("[data-testid=lab-run]"));
        WebElement verdict = new WebDriverWait(browser, Duration.ofSeconds(60))
                .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[data-testid=lab-verdict]")));
        assertThat(verdict.getText()).isNotBlank();
        assertReadout("lab-lost", lost);
        assertReadout("lab-deliveries", deliveries);
        assertReadout("lab-effects", effects);
        assertReadout("lab-completed", completed);
        assertThat(browser.findElements(By.cssSelector("[data-testid=lab-timeline] li"))).isNotEmpty();
        browser.manage().window().setSize(new Dimension(1280, 1180));
        Path shot = screenshot("lab-" + mode);
        browser.manage().window().setSize(new Dimension(1280, 900));
        if ("effect-store".equals(mode)) {
            copyToDocs(shot, "console-lab.png");
        }
    }

    @Test
    @Order(8)
    void signingOutEndsTheSessionAndAWrongPasswordIsRefusedWithoutSayingWhichHalf() {
        open("/");
        click(By.cssSelector("[data-testid=sign-out]"));
        assertThat(waitFor(By.cssSelector("[data-testid=login-message]")).getText()).isEqualTo("You are signed out.");
        browser.get(console);
        waitUntil(d -> d.getCurrentUrl().contains("/console/login.html"));
        assertThat(admin.get("/api/session").status()).as("a script's Basic call is not signed out").isEqualTo(200);

        signInOnTheLoginPage(ADMIN, "not-the-password");
        String wrongPassword = waitFor(By.cssSelector("[data-testid=login-message]")).getText();
        signInOnTheLoginPage("nobody-" + ADMIN, ADMIN_PASSWORD);
        String unknownUser = waitFor(By.cssSelector("[data-testid=login-message]")).getText();
        assertThat(wrongPassword).isEqualTo("Wrong user name or password.").isEqualTo(unknownUser);
        screenshot("login-refused");
    }

    @Test
    @Order(9)
    void aSubmitterSignsInToLookButIsRefusedTheAdminsActionsThenTheAdminComesBack() {
        signInOnTheLoginPage(SUBMITTER, SUBMITTER_PASSWORD);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(SUBMITTER);
        waitUntil(d -> d.findElement(By.id("notices")).getText().contains("without the admin role"));
        open("/queues/" + IDLE);
        WebElement pause = waitFor(By.cssSelector("[data-testid=pause-toggle]"));
        waitUntil(d -> "needs the admin role".equals(pause.getAttribute("title")));
        screenshot("console-submitter");

        click(By.cssSelector("[data-testid=sign-out]"));
        waitFor(By.cssSelector("[data-testid=login-message]"));
        signInOnTheLoginPage(ADMIN, ADMIN_PASSWORD);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(ADMIN);
    }

    @Test
    @Order(10)
    void aSignInPostedFromAnotherSiteIsRefusedUnread() {
        for (Map<String, String> otherSite : List.of(Map.of("Origin", "http://evil.example"),
                Map.of("Origin", "null", "Sec-Fetch-Site", "cross-site"), Map.of("Origin", "null"))) {
            java.net.http.HttpResponse<String> forged = postLoginForm(SUBMITTER, SUBMITTER_PASSWORD, otherSite);

            assertThat(forged.statusCode()).as("%s", otherSite).isEqualTo(303);
            assertThat(forged.headers().firstValue("Location")).as("%s", otherSite)
                    .hasValueSatisfying(l -> assertThat(l).endsWith("login.html?error=cross-site"));
            assertThat(forged.headers().allValues("Set-Cookie")).as("no session begun, %s", otherSite)
                    .noneMatch(c -> c.toUpperCase().startsWith("JSESSIONID"));
        }
    }

    @Test
    @Order(10)
    void aSessionThatEndsWhileTheConsoleIsOpenLeadsToTheLoginPageNotToTheBrowsersPasswordDialog() {
        open("/queues/" + IDLE);
        Object anonymousFetch = ((JavascriptExecutor) browser).executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('../api/queues', {credentials: 'omit'})"
                + ".then(r => done(r.status + ' ' + r.headers.get('WWW-Authenticate')), e => done(String(e)));");
        assertThat(anonymousFetch).as("a page's script is offered no Basic challenge").asString()
                .startsWith("401 ").doesNotContainIgnoringCase("basic");

        browser.manage().deleteCookieNamed("JSESSIONID");
        browser.get(console + "#/workers");
        waitUntil(d -> d.getCurrentUrl().contains("/console/login.html"));

        signInOnTheLoginPage(ADMIN, ADMIN_PASSWORD);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(ADMIN);
    }

    /** Last: it locks the submitter out for the window. */
    @Test
    @Order(11)
    void fiveWrongPasswordsHoldTheUserBackEvenWithTheRightOneOnThePageAndOverBasic() {
        for (int i = 0; i < 5; i++) {
            assertThat(postLoginForm(SUBMITTER, "wrong-" + i, Map.of()).headers().firstValue("Location"))
                    .hasValueSatisfying(l -> assertThat(l).endsWith("login.html?error=wrong"));
        }

        java.net.http.HttpResponse<String> right = postLoginForm(SUBMITTER, SUBMITTER_PASSWORD, Map.of());
        ConsoleApi.Response basic = submitter.get("/api/session");

        assertThat(right.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("login.html?error=throttled"));
        assertThat(basic.status()).as("HTTP Basic: %s", basic).isEqualTo(429);
        assertThat(admin.get("/api/session").status()).as("another user from the same address").isEqualTo(200);
    }

    // ---- helpers --------------------------------------------------------------------------

    /** The login page's form as a browser posts it, with {@code headers} added; the answer is not followed. */
    private static java.net.http.HttpResponse<String> postLoginForm(String user, String password, Map<String, String> headers) {
        java.net.http.HttpRequest.Builder post = java.net.http.HttpRequest.newBuilder(java.net.URI.create(console + "login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("username=" + java.net.URLEncoder.encode(user,
                        java.nio.charset.StandardCharsets.UTF_8) + "&password=" + java.net.URLEncoder.encode(password,
                        java.nio.charset.StandardCharsets.UTF_8)));
        headers.forEach(post::header);
        try {
            return java.net.http.HttpClient.newHttpClient().send(post.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }


    /** Opens the console's login page afresh, fills it in and submits it; returns once the answer has loaded. */
    private static void signInOnTheLoginPage(String user, String password) {
        String loginPage = console + "login.html";
        browser.get(loginPage);
        waitFor(By.id("username")).sendKeys(user);
        browser.findElement(By.id("password")).sendKeys(password);
        click(By.cssSelector("[data-testid=login-submit]"));
        waitUntil(d -> !d.getCurrentUrl().equals(loginPage));
    }


    private static void open(String route) {
        String target = console + "#" + route;
        if (target.equals(browser.getCurrentUrl())) {
            browser.navigate().refresh(); // the same address is no navigation: load the page afresh
        } else {
            browser.get(target);
        }
        waitFor(By.cssSelector("main .page"));
    }

    /** Waits for a success notice with this text (earlier notices may still be showing). */
    private static void awaitNotice(String message) {
        waitUntil(d -> d.findElements(By.cssSelector("[data-testid=notice-ok]")).stream().anyMatch(n -> n.getText().contains(message)));
    }

    private static WebElement waitFor(By by) {
        return new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    private static void waitUntil(Function<WebDriver, Boolean> condition) {
        new WebDriverWait(browser, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.NoSuchElementException.class).until(condition::apply);
    }

    private static void click(By by) {
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.elementToBeClickable(by)).click();
    }

    private static String text(By by) {
        return browser.findElement(by).getText().trim();
    }

    private static void assertReadout(String testid, Integer expected) {
        if (expected != null) {
            String shown = text(By.cssSelector("[data-testid=" + testid + "]"));
            // "completed" may be a count or a yes/no.
            String asCount = switch (shown) {
                case "yes" -> "1";
                case "no" -> "0";
                default -> shown;
            };
            assertThat(asCount).as(testid + " (shown: " + shown + ")").isEqualTo(String.valueOf(expected));
        }
    }

    private static void assertNoAlert() {
        try {
            String alert = browser.switchTo().alert().getText();
            throw new AssertionError("an alert opened: " + alert);
        } catch (NoAlertPresentException expected) {
            // nothing ran
        }
    }

    private static Path screenshot(String name) {
        return ConsoleBrowser.screenshot(browser, SCREENSHOTS, name);
    }

    private static void copyToDocs(Path screenshot, String name) throws IOException {
        if (Files.isDirectory(DOCS)) {
            Files.copy(screenshot, DOCS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
