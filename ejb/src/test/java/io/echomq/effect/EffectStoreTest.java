package io.echomq.effect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.Lease;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The effect store against a real PostgreSQL: applied once, whatever the attempts and races. */
@WithRealServices
class EffectStoreTest {

    private static final AtomicInteger JOBS = new AtomicInteger();
    private static Jdbi jdbi;
    private static EffectStore store;

    private final AtomicInteger handlerRuns = new AtomicInteger();
    private String jobId;

    @BeforeAll
    static void migrate(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_store");
        Migrations.migrate(database.dataSource());
        // The effects these tests apply are the demo's ledger rows.
        LedgerChargeHandler.createTables(database.dataSource());
        jdbi = Jdbi.create(database.dataSource());
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.demo_account (id) VALUES ('acct')"));
        store = new EffectStore(jdbi, new EffectSettings(Duration.ofMillis(300), Duration.ofSeconds(30), WINDOW));
    }

    @BeforeEach
    void nextJob() {
        jobId = Integer.toString(JOBS.incrementAndGet());
    }

    /** The creation time of every job here but the ones that test reused ids. */
    private static final long CREATED_MS = 1_700_000_000_000L;
    /** The idempotency window of the stores here. */
    private static final Duration WINDOW = Duration.ofHours(1);

    private Lease attempt(int n) {
        return new Lease("payments", jobId, CREATED_MS, n);
    }

    /** The demo effect: one ledger row for this job. */
    private void charge(Handle tx, Lease lease) {
        handlerRuns.incrementAndGet();
        tx.createUpdate("INSERT INTO echomq.demo_ledger (queue, job_id, attempt, account, amount_cents) "
                        + "VALUES (:q, :j, :a, 'acct', 500)")
                .bind("q", lease.queue()).bind("j", Long.parseLong(lease.jobId())).bind("a", lease.token())
                .execute();
    }

    private int ledgerRows() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE job_id = :j")
                .bind("j", Long.parseLong(jobId)).mapTo(Integer.class).one());
    }

    /**
     * Every insert checks for a row from before V3 that stands for the job. On a queue whose rows
     * the statistics do not know yet (a new database or a new queue), the cached plan of that
     * check once read every index entry of the queue, so each insert cost more as the queue grew
     * until autovacuum analyzed the table (the soak saw a new queue's throughput fall by 40 %
     * within a minute). The check must read next to nothing however many rows the queue has.
     */
    @Test
    void recordingABatchReadsNoneOfTheQueuesRowsEvenBeforeTheTableIsAnalyzed() {
        String queue = "unanalyzed-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt) "
                + "SELECT ?, g, ?, 1 FROM generate_series(1, 200000) g", queue, CREATED_MS));
        String ids = "ARRAY[" + String.join(",", java.util.stream.LongStream.rangeClosed(60_001, 60_100).mapToObj(Long::toString).toList()) + "]";
        String plan = jdbi.withHandle(h -> {
            h.begin();
            try {
                h.execute("SET LOCAL plan_cache_mode = force_generic_plan");   // the plan every pooled connection caches after five runs
                h.execute("PREPARE record_batch AS " + numberedParameters(store.recordManyStatement()));
                return String.join("\n", h.createQuery("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE record_batch('" + queue
                        + "', " + ids + ", array_fill(" + CREATED_MS + "::bigint, ARRAY[100]), array_fill(1::bigint, ARRAY[100]), "
                        + "array_fill(NULL::text, ARRAY[100]), '" + queue + "')").mapTo(String.class).list());
            } finally {
                h.rollback();
                h.execute("DEALLOCATE record_batch");
            }
        });

        // The old rows' own index is empty: a few pages, or one per job if probed job by job. The
        // primary key's entries of the queue's 200,000 rows fill about 1,000 pages.
        assertThat(buffersReadByScansOfTheEffectTable(plan)).as(plan).isLessThan(400);
    }

    @Test
    void theOldestRowsAgeIsHowLongAgoTheQueuesOldestEffectWasApplied() {
        String queue = "oldest-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        assertThat(store.oldestRowAge(queue)).as("a queue without effect rows").isEmpty();
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, applied_at) "
                + "SELECT ?, g, ?, 1, now() - g * interval '1 hour' FROM generate_series(1, 3) g", queue, CREATED_MS));
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, applied_at) "
                + "VALUES (?, 1, ?, 1, now() - interval '9 hours')", queue + "-other", CREATED_MS));

        assertThat(store.oldestRowAge(queue)).get().satisfies(age ->
                assertThat(age).isBetween(Duration.ofHours(3), Duration.ofHours(3).plusMinutes(1)));
    }

    @Test
    void findingTheRowsPastTheirAgeReadsNoneOfTheYoungerRows() {
        String queue = "aging-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, applied_at) "
                + "SELECT ?, g, ?, 1, CASE WHEN g <= 100 THEN now() - interval '1 hour' ELSE now() END "
                + "FROM generate_series(1, 200000) g", queue, CREATED_MS));
        // The batch that ends each retention walk: fewer rows past the age than its limit.
        String statement = EffectStore.appliedBeforeStatement().replace(":queue", "'" + queue + "'").replace(":ageMs", "60000")
                .replace(":afterAt", "'-infinity'::timestamptz").replace(":afterId", "0").replace(":limit", "1000");

        String plan = jdbi.withHandle(h -> String.join("\n",
                h.createQuery("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) " + statement).mapTo(String.class).list()));

        assertThat(plan).as(plan).contains("rows=100 ");
        // The 100 old rows fill a page or two of the index and the table; the 199,900 younger ones about 1,700.
        assertThat(buffersReadByScansOfTheEffectTable(plan)).as(plan).isLessThan(100);
    }

    /** JDBC's {@code ?} placeholders as PREPARE wants them: $1, $2, ... */
    private static String numberedParameters(String sql) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            out.append(c == '?' ? "$" + ++n : String.valueOf(c));
        }
        return out.toString();
    }

    /** Shared buffers (hit or read) of every scan node on the effect table in an EXPLAIN (ANALYZE, BUFFERS) text. */
    private static int buffersReadByScansOfTheEffectTable(String plan) {
        int total = 0;
        boolean inEffectScan = false;
        for (String line : plan.split("\n")) {
            // A line that starts a plan node, or the plan's top level (its root, "Planning:"), ends the scan before it.
            if (line.contains("->") || !line.startsWith(" ")) {
                inEffectScan = line.contains("Scan") && line.contains(" on effect");
            }
            java.util.regex.Matcher buffers = java.util.regex.Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?").matcher(line);
            if (inEffectScan && buffers.find()) {
                total += (buffers.group(1) == null ? 0 : Integer.parseInt(buffers.group(1)))
                        + (buffers.group(2) == null ? 0 : Integer.parseInt(buffers.group(2)));
            }
        }
        return total;
    }

    @Test
    void firstAttemptAppliesTheEffectAndRecordsItsAttempt() {
        EffectOutcome outcome = store.apply(attempt(1), tx -> charge(tx, attempt(1)));

        assertThat(outcome).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(ledgerRows()).isEqualTo(1);
        assertThat(store.find(new JobIdentity("payments", jobId, CREATED_MS, null))).hasValueSatisfying(r -> assertThat(r.attempt()).isEqualTo(1));
    }

    @Test
    void theEffectTransactionRunsWithItsTimeoutsAndSynchronousCommit() {
        jdbi.useHandle(h -> h.execute("ALTER DATABASE " + h.createQuery("SELECT current_database()").mapTo(String.class).one()
                + " SET synchronous_commit = off"));
        java.util.List<String> seen = new java.util.ArrayList<>();
        store.apply(attempt(1), tx -> seen.addAll(java.util.List.of(
                tx.createQuery("SHOW lock_timeout").mapTo(String.class).one(),
                tx.createQuery("SHOW idle_in_transaction_session_timeout").mapTo(String.class).one(),
                tx.createQuery("SHOW synchronous_commit").mapTo(String.class).one())));

        assertThat(seen).containsExactly("300ms", "30s", "on");
    }

    @Test
    void laterAttemptSkipsTheHandlerAndNamesTheAttemptThatApplied() {
        store.apply(attempt(1), tx -> charge(tx, attempt(1)));

        EffectOutcome redelivered = store.apply(attempt(2), tx -> charge(tx, attempt(2)));

        assertThat(redelivered).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, a -> {
            assertThat(a.record().attempt()).isEqualTo(1);
            assertThat(a.describe()).contains("already applied by attempt 1");
        });
        assertThat(handlerRuns).hasValue(1);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    void aJobWithAnotherJobsIdButItsOwnCreationTimeIsApplied() {
        store.apply(attempt(1), tx -> charge(tx, attempt(1)));
        Lease newJobSameId = new Lease("payments", jobId, CREATED_MS + 5_000, 1);

        EffectOutcome outcome = store.apply(newJobSameId, tx -> charge(tx, newJobSameId));

        assertThat(outcome).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(ledgerRows()).as("one charge per job").isEqualTo(2);
        assertThat(store.find(new JobIdentity("payments", jobId, CREATED_MS + 5_000, null))).hasValueSatisfying(r ->
                assertThat(r.jobCreatedMs()).isEqualTo(CREATED_MS + 5_000));
        assertThat(store.applyAll(List.of(attempt(2), new Lease("payments", jobId, CREATED_MS + 5_000, 2)), (tx, recorded) -> {
            throw new AssertionError("both jobs were applied already, yet " + recorded + " ran");
        })).allMatch(EffectOutcome.AlreadyApplied.class::isInstance);
    }

    @Test
    void aRowRecordedBeforeKeysHeldTheCreationTimeStillCountsForItsJob() {
        // What the V3 migration leaves of a row written by the previous version.
        jdbi.useHandle(h -> h.createUpdate("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt) VALUES ('payments', :j, 0, 1)")
                .bind("j", Long.parseLong(jobId)).execute());

        EffectOutcome single = store.apply(attempt(2), tx -> charge(tx, attempt(2)));
        List<EffectOutcome> batch = store.applyAll(List.of(attempt(3)), (tx, recorded) -> recorded.forEach(l -> charge(tx, l)));

        assertThat(single).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, a -> assertThat(a.record().attempt()).isEqualTo(1));
        assertThat(batch).allMatch(EffectOutcome.AlreadyApplied.class::isInstance);
        assertThat(handlerRuns).hasValue(0);
        assertThat(store.find(new JobIdentity("payments", jobId, CREATED_MS, null))).hasValueSatisfying(r -> assertThat(r.jobCreatedMs()).isZero());
    }

    @Test
    void aLeaseWithoutACreationTimeIsRefusedNamingTheField() {
        Lease unnamed = new Lease("payments", jobId, 0, 1);

        assertThatThrownBy(() -> store.apply(unnamed, tx -> charge(tx, unnamed)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jobCreatedMs");
        assertThat(handlerRuns).hasValue(0);
    }

    @Test
    void failingHandlerRollsBackItsWritesAndTheEffectRow() {
        assertThatThrownBy(() -> store.apply(attempt(1), tx -> {
            charge(tx, attempt(1));
            throw new IllegalStateException("card declined");
        })).isInstanceOf(EffectFailedException.class).hasMessageContaining("card declined");

        assertThat(ledgerRows()).isZero();
        assertThat(store.find(new JobIdentity("payments", jobId, CREATED_MS, null))).isEmpty();
        assertThat(store.apply(attempt(2), tx -> charge(tx, attempt(2)))).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    void zombieAndSuccessorRacingProduceOneEffect() throws Exception {
        CompletableFuture<Integer> zombieHoldsTheKey = new CompletableFuture<>();
        CountDownLatch letZombieCommit = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> zombie = CompletableFuture.supplyAsync(() -> store.apply(attempt(1), tx -> {
            charge(tx, attempt(1));
            zombieHoldsTheKey.complete(LockWaits.backendOf(tx));
            assertThat(letZombieCommit.await(10, TimeUnit.SECONDS)).isTrue();
        }));
        int zombieBackend = zombieHoldsTheKey.get(10, TimeUnit.SECONDS);

        EffectStore patient = new EffectStore(jdbi, new EffectSettings(Duration.ofSeconds(10), Duration.ofSeconds(30), WINDOW));
        CompletableFuture<EffectOutcome> successor = CompletableFuture.supplyAsync(
                () -> patient.apply(attempt(2), tx -> charge(tx, attempt(2))));
        LockWaits.assertWaitsOnAnEffectKey(LockWaits.awaitBlockedBy(jdbi, zombieBackend));
        assertThat(successor).as("the successor waits on the zombie's key").isNotDone();
        letZombieCommit.countDown();

        assertThat(zombie.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(successor.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class,
                a -> assertThat(a.record().attempt()).isEqualTo(1));
        assertThat(ledgerRows()).isEqualTo(1);
        assertThat(handlerRuns).hasValue(1);
    }

    @Test
    void successorAppliesWhenTheZombieRollsBack() throws Exception {
        CompletableFuture<Integer> zombieHoldsTheKey = new CompletableFuture<>();
        CountDownLatch letZombieFail = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> zombie = CompletableFuture.supplyAsync(() -> store.apply(attempt(1), tx -> {
            charge(tx, attempt(1));
            zombieHoldsTheKey.complete(LockWaits.backendOf(tx));
            letZombieFail.await(10, TimeUnit.SECONDS);
            throw new IllegalStateException("zombie dies");
        }));
        int zombieBackend = zombieHoldsTheKey.get(10, TimeUnit.SECONDS);
        EffectStore patient = new EffectStore(jdbi, new EffectSettings(Duration.ofSeconds(10), Duration.ofSeconds(30), WINDOW));
        CompletableFuture<EffectOutcome> successor = CompletableFuture.supplyAsync(
                () -> patient.apply(attempt(2), tx -> charge(tx, attempt(2))));
        LockWaits.assertWaitsOnAnEffectKey(LockWaits.awaitBlockedBy(jdbi, zombieBackend));
        assertThat(successor).as("the successor waits on the zombie's key").isNotDone();
        letZombieFail.countDown();

        assertThatThrownBy(() -> zombie.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(EffectFailedException.class);
        assertThat(successor.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(EffectOutcome.Applied.class,
                a -> assertThat(a.record().attempt()).isEqualTo(2));
        assertThat(ledgerRows()).isEqualTo(1);
    }

    @Test
    void aPausedZombieBlocksTheNextAttemptNoLongerThanTheLockTimeout() throws Exception {
        CountDownLatch zombieHoldsTheKey = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> zombie = CompletableFuture.supplyAsync(() -> store.apply(attempt(1), tx -> {
            charge(tx, attempt(1));
            zombieHoldsTheKey.countDown();
            release.await(10, TimeUnit.SECONDS);
        }));
        assertThat(zombieHoldsTheKey.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            long started = System.nanoTime();
            assertThatThrownBy(() -> store.apply(attempt(2), tx -> charge(tx, attempt(2))))
                    .isInstanceOf(EffectContendedException.class).hasMessageContaining("lock_timeout (300 ms)");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        } finally {
            release.countDown();
        }
        zombie.get(10, TimeUnit.SECONDS);
        assertThat(ledgerRows()).isEqualTo(1);
        assertThat(handlerRuns).hasValue(1);
    }

    /** A job of its own, submitted with this test's idempotency key {@code created} ms after the first. */
    private Lease keyedJob(long createdAfterFirst, int attempt) {
        return new Lease("payments", Integer.toString(JOBS.incrementAndGet()), CREATED_MS + createdAfterFirst, attempt, "order-" + jobId);
    }

    private Lease keyedAttempt(int n) {
        return new Lease("payments", jobId, CREATED_MS, n, "order-" + jobId);
    }

    /** Ledger rows of all the jobs this test submitted with its idempotency key (and of none other). */
    private int chargesOfTheKey(List<Lease> jobs) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE job_id = ANY(:ids)")
                .bind("ids", jobs.stream().mapToLong(l -> Long.parseLong(l.jobId())).toArray()).mapTo(Integer.class).one());
    }

    @Test
    void aSecondJobWithTheSameIdempotencyKeySkipsTheHandlerAndNamesTheFirstJob() {
        Lease first = keyedAttempt(1);
        store.apply(first, tx -> charge(tx, first));
        // A failover lost the first job and its key after the effect committed; the client resubmitted.
        Lease resubmitted = keyedJob(3_000, 1);

        EffectOutcome outcome = store.apply(resubmitted, tx -> charge(tx, resubmitted));
        EffectOutcome retried = store.apply(keyedAttempt(2), tx -> charge(tx, keyedAttempt(2)));

        assertThat(outcome).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, a -> {
            assertThat(a.byAnotherJob()).isTrue();
            assertThat(a.record().jobId()).isEqualTo(jobId);
            assertThat(a.describe()).contains("already applied by job " + jobId + " created 2023-11-14T22:13:20Z (submitted with the same idempotency key 'order-" + jobId + "')");
        });
        assertThat(retried).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, a -> assertThat(a.byAnotherJob()).isFalse());
        assertThat(handlerRuns).hasValue(1);
        assertThat(chargesOfTheKey(List.of(first, resubmitted))).isEqualTo(1);
        assertThat(store.find(new JobIdentity("payments", resubmitted.jobId(), resubmitted.jobCreatedMs(), resubmitted.idempotencyKey())))
                .hasValueSatisfying(r -> assertThat(r.jobId()).isEqualTo(jobId));
        assertThat(store.find(new JobIdentity("payments", resubmitted.jobId(), resubmitted.jobCreatedMs(), null))).as("without its key, the job has no effect").isEmpty();
    }

    @Test
    void aBatchSkipsOnlyItsJobWhoseIdempotencyKeyAnotherJobApplied() {
        Lease first = keyedAttempt(1);
        store.apply(first, tx -> charge(tx, first));
        Lease resubmitted = keyedJob(3_000, 1);
        Lease unkeyed = new Lease("payments", Integer.toString(JOBS.incrementAndGet()), CREATED_MS, 1);
        List<Lease> ran = new java.util.ArrayList<>();

        List<EffectOutcome> outcomes = store.applyAll(List.of(resubmitted, unkeyed), (tx, recorded) -> {
            ran.addAll(recorded);
            recorded.forEach(l -> charge(tx, l));
        });

        assertThat(ran).containsExactly(unkeyed);
        assertThat(outcomes.get(0)).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class,
                a -> assertThat(a.record().jobId()).isEqualTo(jobId));
        assertThat(outcomes.get(1)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(chargesOfTheKey(List.of(first, resubmitted))).isEqualTo(1);
    }

    @Test
    void aJobSubmittedAWholeWindowAfterTheFirstTakesTheKeyAndApplies() {
        Lease first = keyedAttempt(1);
        store.apply(first, tx -> charge(tx, first));
        Lease reuse = keyedJob(WINDOW.toMillis(), 1);
        Lease reuseAgain = keyedJob(WINDOW.toMillis() + 2_000, 1);

        EffectOutcome reused = store.apply(reuse, tx -> charge(tx, reuse));
        EffectOutcome again = store.apply(reuseAgain, tx -> charge(tx, reuseAgain));

        assertThat(reused).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(again).as("within the window of the job that now holds the key")
                .isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, a -> assertThat(a.record().jobId()).isEqualTo(reuse.jobId()));
        assertThat(chargesOfTheKey(List.of(first, reuse, reuseAgain))).isEqualTo(2);
        assertThat(store.find(new JobIdentity("payments", jobId, CREATED_MS, null))).as("the first job keeps its record").isPresent();
        assertThat(store.apply(keyedAttempt(2), tx -> charge(tx, keyedAttempt(2)))).as("and a retry of it still skips")
                .isInstanceOf(EffectOutcome.AlreadyApplied.class);
    }

    @Test
    void twoJobsWithOneIdempotencyKeyRacingProduceOneEffect() throws Exception {
        Lease first = keyedAttempt(1);
        Lease resubmitted = keyedJob(1_000, 1);
        CompletableFuture<Integer> firstHoldsTheKey = new CompletableFuture<>();
        CountDownLatch letFirstCommit = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> running = CompletableFuture.supplyAsync(() -> store.apply(first, tx -> {
            charge(tx, first);
            firstHoldsTheKey.complete(LockWaits.backendOf(tx));
            assertThat(letFirstCommit.await(10, TimeUnit.SECONDS)).isTrue();
        }));
        int firstBackend = firstHoldsTheKey.get(10, TimeUnit.SECONDS);

        EffectStore patient = new EffectStore(jdbi, new EffectSettings(Duration.ofSeconds(10), Duration.ofSeconds(30), WINDOW));
        CompletableFuture<EffectOutcome> second = CompletableFuture.supplyAsync(() -> patient.apply(resubmitted, tx -> charge(tx, resubmitted)));
        LockWaits.assertWaitsOnAnIdempotencyKey(LockWaits.awaitBlockedBy(jdbi, firstBackend));
        assertThat(second).as("the second job waits on the key the first holds").isNotDone();
        letFirstCommit.countDown();

        assertThat(running.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.AlreadyApplied.class);
        assertThat(chargesOfTheKey(List.of(first, resubmitted))).isEqualTo(1);
    }
}
