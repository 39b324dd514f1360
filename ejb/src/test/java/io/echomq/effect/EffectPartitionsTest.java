package io.echomq.effect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.Lease;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The effect table partitioned by job creation time (V12): an idempotency key still names one
 * effect across partitions, and a partition's retirement never shows a reader a moment without a
 * row that is still needed.
 */
@WithRealServices
class EffectPartitionsTest {

    /** Jobs here are created from this time on; the partitions below cut it into seconds. */
    private static final long CREATED_MS = 1_700_000_000_000L;
    private static final Duration WINDOW = Duration.ofHours(1);
    private static final AtomicInteger JOBS = new AtomicInteger();

    private Jdbi jdbi;
    private EffectStore store;
    private EffectPartitions partitions;

    @BeforeEach
    void database(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_partitions");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        jdbi = Jdbi.create(database.dataSource());
        store = new EffectStore(jdbi, new EffectSettings(Duration.ofSeconds(10), Duration.ofSeconds(30), WINDOW));
        partitions = new EffectPartitions(EffectTransactions.local(jdbi), Duration.ofSeconds(30));
        // One partition per second of creation time, for ten seconds from CREATED_MS.
        partitions.makeAhead(CREATED_MS, CREATED_MS + 10_000, Duration.ofSeconds(1));
    }

    private static Lease keyedJob(long createdAfter, String key) {
        return new Lease("payments", Integer.toString(JOBS.incrementAndGet()), CREATED_MS + createdAfter, 1, key);
    }

    private static void charge(Handle tx, Lease lease) {
        LedgerChargeHandler.charge(tx, lease.queue(), lease.jobId(), lease.token(), new Charge("acct", 500));
    }

    private int charges(List<Lease> jobs) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE job_id = ANY(:ids)")
                .bind("ids", jobs.stream().mapToLong(l -> Long.parseLong(l.jobId())).toArray()).mapTo(Integer.class).one());
    }

    private String partitionOf(Lease job) {
        return EffectRows.partitionOf(jdbi, job.queue(), job.jobId()).orElseThrow();
    }

    /**
     * A change of the partition set that cannot get the table's lock in time gives up as busy,
     * changing nothing: maintenance tells it in one line and tries later. In CI it came as a
     * WARNING with a stack trace from every run that met an effect transaction.
     */
    @Test
    void aPartitionChangeThatCannotGetTheTablesLockGivesUpAsBusyAndChangesNothing() {
        EffectPartitions impatient = new EffectPartitions(EffectTransactions.local(jdbi), Duration.ofMillis(200));
        List<EffectPartitions.Range> before = partitions.ranges();
        try (Handle blocker = jdbi.open()) {
            blocker.begin();
            blocker.execute("LOCK TABLE echomq.effect IN SHARE UPDATE EXCLUSIVE MODE");

            assertThatThrownBy(() -> impatient.makeAhead(CREATED_MS + 10_000, CREATED_MS + 20_000, Duration.ofSeconds(1)))
                    .isInstanceOf(EffectPartitions.BusyException.class).hasMessageContaining("200 ms");
            blocker.rollback();
        }
        assertThat(partitions.ranges()).as("partitions after the change gave up").isEqualTo(before);
    }

    @Test
    void aResubmissionCreatedInTheNextPartitionSkipsItsHandler() {
        Lease first = keyedJob(500, "order-1");
        Lease resubmitted = keyedJob(1_500, "order-1");

        assertThat(store.apply(first, tx -> charge(tx, first))).isInstanceOf(EffectOutcome.Applied.class);
        EffectOutcome second = store.apply(resubmitted, tx -> charge(tx, resubmitted));

        assertThat(second).isInstanceOf(EffectOutcome.AlreadyApplied.class);
        assertThat(((EffectOutcome.AlreadyApplied) second).record().jobId()).isEqualTo(first.jobId());
        assertThat(charges(List.of(first, resubmitted))).isEqualTo(1);
        assertThat(partitionOf(first)).isEqualTo("echomq.effect_p" + CREATED_MS);
    }

    @Test
    void twoJobsWithOneIdempotencyKeyInTwoPartitionsRacingProduceOneEffect() throws Exception {
        Lease first = keyedJob(500, "order-2");
        Lease resubmitted = keyedJob(1_500, "order-2");
        CompletableFuture<Integer> firstHoldsTheKey = new CompletableFuture<>();
        CountDownLatch letFirstCommit = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> running = CompletableFuture.supplyAsync(() -> store.apply(first, tx -> {
            charge(tx, first);
            firstHoldsTheKey.complete(LockWaits.backendOf(tx));
            assertThat(letFirstCommit.await(10, TimeUnit.SECONDS)).isTrue();
        }));
        int firstBackend = firstHoldsTheKey.get(10, TimeUnit.SECONDS);

        CompletableFuture<EffectOutcome> second = CompletableFuture.supplyAsync(() -> store.apply(resubmitted, tx -> charge(tx, resubmitted)));
        LockWaits.assertWaitsOnAnIdempotencyKey(LockWaits.awaitBlockedBy(jdbi, firstBackend));
        letFirstCommit.countDown();

        assertThat(running.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.AlreadyApplied.class);
        assertThat(charges(List.of(first, resubmitted))).isEqualTo(1);
    }

    @Test
    void aBatchWithTwoJobsOfOneKeyAppliesOnlyTheFirst() {
        Lease first = keyedJob(500, "order-3");
        Lease resubmitted = keyedJob(1_500, "order-3");

        List<EffectOutcome> outcomes = store.applyAll(List.of(resubmitted, first), (tx, recorded) -> recorded.forEach(l -> charge(tx, l)));

        assertThat(outcomes.get(0)).isInstanceOf(EffectOutcome.AlreadyApplied.class);
        assertThat(outcomes.get(1)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(charges(List.of(first, resubmitted))).isEqualTo(1);
    }

    /**
     * The retirement is held right where it has detached the partition and puts the still-needed
     * row back: a trigger on the DEFAULT partition waits there for an advisory lock this test
     * keeps. A reader that asks for that row then must wait and find it, never find nothing: were
     * the detach committed on its own, the reader would see the table without the row.
     */
    @Test
    void aReaderNeverSeesAMomentWithoutTheRowOfAJobStillHeldWhileItsPartitionIsRetired() throws Exception {
        Lease held = keyedJob(2_500, null);
        Lease finished = keyedJob(2_600, null);
        store.apply(held, tx -> charge(tx, held));
        store.apply(finished, tx -> charge(tx, finished));
        EffectPartitions.Range partition = partitions.ranges().stream().filter(r -> r.fromMs() == CREATED_MS + 2_000).findFirst().orElseThrow();
        EffectRecord heldRow = store.find(held.identity()).orElseThrow();

        CompletableFuture<java.util.Optional<Integer>> retirement;
        jdbi.useHandle(h -> h.execute("""
                CREATE FUNCTION echomq.hold_copy_back() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$"""));
        jdbi.useHandle(h -> h.execute(
                "CREATE TRIGGER hold_copy_back BEFORE INSERT ON echomq.effect_default FOR EACH ROW EXECUTE FUNCTION echomq.hold_copy_back()"));
        try (Handle blocker = jdbi.open()) {
            blocker.begin();
            blocker.execute("SELECT pg_advisory_xact_lock(4242)");
            int blockerBackend = LockWaits.backendOf(blocker);
            retirement = CompletableFuture.supplyAsync(() -> partitions.retire(partition, List.of(heldRow), Instant.now().plusSeconds(60)));
            LockWaits.Waiter retiring = LockWaits.awaitBlockedBy(jdbi, blockerBackend);
            assertThat(retiring.query()).as("the retirement waits to put the row back").contains("INSERT INTO echomq.effect");

            CompletableFuture<java.util.Optional<EffectRecord>> reader = CompletableFuture.supplyAsync(() -> store.find(held.identity()));
            await("the reader has read, or waits for the retirement").atMost(Duration.ofSeconds(10))
                    .until(() -> reader.isDone() || LockWaits.blocksAnother(jdbi, retiring.pid()));
            assertThat(reader.getNow(null)).as("what the reader found while the partition was detached and its row not yet back")
                    .isNull();
            blocker.rollback();

            assertThat(reader.get(10, TimeUnit.SECONDS)).as("the held job's row, read during the retirement").contains(heldRow);
        }
        assertThat(retirement.get(10, TimeUnit.SECONDS)).contains(1);
        assertThat(store.find(held.identity())).contains(heldRow);
        assertThat(partitionOf(held)).isEqualTo("echomq.effect_default");
        assertThat(store.find(finished.identity())).as("the finished job's row went with its partition").isEmpty();
        assertThat(partitions.ranges()).doesNotContain(partition);
    }

    @Test
    void aRetirementKeepsTheRowsAppliedSinceTheGivenTime() {
        Lease late = keyedJob(3_500, null);
        store.apply(late, tx -> charge(tx, late));
        EffectPartitions.Range partition = partitions.ranges().stream().filter(r -> r.fromMs() == CREATED_MS + 3_000).findFirst().orElseThrow();

        assertThat(partitions.retire(partition, List.of(), Instant.now().minusSeconds(60))).contains(1);

        assertThat(store.find(new JobIdentity(late.queue(), late.jobId(), late.jobCreatedMs(), null))).isPresent();
    }

    @Test
    void partitionsFollowTheNewestAndStartLaterWhenTheyLapsed() {
        long newest = partitions.ranges().stream().mapToLong(EffectPartitions.Range::toMs).max().orElseThrow();

        assertThat(partitions.makeAhead(0, newest + 2_000, Duration.ofSeconds(1))).extracting(EffectPartitions.Range::fromMs)
                .containsExactly(newest, newest + 1_000);
        assertThat(partitions.makeAhead(newest + 60_000, newest + 61_000, Duration.ofSeconds(1))).extracting(EffectPartitions.Range::fromMs)
                .containsExactly(newest + 60_000);
    }

    @Test
    void theMigrationKeepsTheRowsOfTheUnpartitionedTableInAPartitionOfTheirOwn(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_unpartitioned");
        Migrations.configuration(database.dataSource()).target("10").load().migrate();
        Jdbi old = Jdbi.create(database.dataSource());
        int rows = Integer.getInteger("echomq.test.migration-rows", 20_000);
        old.useHandle(h -> h.execute("""
                INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, idempotency_key)
                SELECT 'q', i, CASE WHEN i % 100 = 0 THEN 0 ELSE ? + i END, 1, CASE WHEN i % 10 = 0 THEN 'key-' || i END
                FROM generate_series(1, ?) AS i""", CREATED_MS, rows));
        old.useHandle(h -> h.execute("VACUUM ANALYZE echomq.effect"));

        long started = System.nanoTime();
        Migrations.migrate(database.dataSource());
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        System.out.printf("V12 converted %,d effect rows in %,d ms%n", rows, tookMs);

        int converted = old.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect_before_partitions").mapTo(Integer.class).one());
        assertThat(converted)
                .isEqualTo(rows);
        EffectPartitions migrated = new EffectPartitions(EffectTransactions.local(old));
        assertThat(migrated.ranges()).containsExactly(new EffectPartitions.Range("effect_before_partitions", Long.MIN_VALUE, CREATED_MS + rows));
        EffectStore upgraded = new EffectStore(old, EffectSettings.DEFAULT);
        assertThat(upgraded.find(new JobIdentity("q", "7", CREATED_MS + 7, null))).isPresent();
        assertThat(upgraded.find(new JobIdentity("q", "200", CREATED_MS + 123, null))).as("a row from before creation times").isPresent();
        Lease reusesKey = new Lease("q", Integer.toString(rows + 1), CREATED_MS + rows + 5, 1, "key-10");
        assertThat(upgraded.apply(reusesKey, tx -> { })).as("a resubmission of a job converted with the table")
                .isInstanceOf(EffectOutcome.AlreadyApplied.class);
    }
}
