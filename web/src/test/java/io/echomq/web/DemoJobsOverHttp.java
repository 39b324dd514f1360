package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Exactly-once over HTTP: demo charges submitted by concurrent clients, then the ledger held to them. */
final class DemoJobsOverHttp {

    private DemoJobsOverHttp() {
    }

    /**
     * Submits {@code jobs} charges of 100 cents with 4 clients, each answered 201, waits until all
     * completed, and checks that the ledger gained exactly one entry per job and holds no duplicate.
     *
     * @return the ledger entries this call added (equal to {@code jobs} when it returns)
     */
    static long submitAndCheckTheLedger(E2eDeployment app, int jobs) throws Exception {
        long before = app.count("completed");
        long entriesBefore = app.ledger().getJsonNumber("entries").longValue();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            String body = ApiE2eIT.charge("acct-" + (i % 7), 100);
            statuses.add(clients.submit(() -> app.submitter.post("/api/queues/" + E2eDeployment.DEMO_QUEUE + "/jobs", body).status()));
        }
        for (Future<Integer> status : statuses) {
            assertThat(status.get()).isEqualTo(201);
        }
        clients.shutdown();

        app.awaitCompleted(before + jobs, Duration.ofMinutes(2));

        assertThat(app.count("completed")).isEqualTo(before + jobs);
        JsonObject ledger = app.ledger();
        long added = ledger.getJsonNumber("entries").longValue() - entriesBefore;
        assertThat(added).isEqualTo(jobs);
        assertThat(ledger.getJsonNumber("duplicates").longValue()).isZero();
        assertThat(ledger.getJsonNumber("entries").longValue()).isEqualTo(ledger.getJsonNumber("distinctJobs").longValue());
        return added;
    }
}
