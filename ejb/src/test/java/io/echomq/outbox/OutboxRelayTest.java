package io.echomq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.api.JobRequest;
import io.echomq.effect.Migrations;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.outbox.OutboxCommand;
import io.echomq.queue.outbox.OutboxDeadRows;
import io.echomq.queue.outbox.OutboxGauge;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.FaultProxy;
import io.echomq.testkit.faults.FaultyDataSources;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The outbox relay against a real PostgreSQL and a real Valkey, without an application server:
 * rows are written by {@link OutboxWriter} (committed on their own, as the caller's transaction
 * would commit them) and relayed by {@link OutboxRelay#sweep()} called directly.
 */
@WithRealServices
class OutboxRelayTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final Duration POLL = Duration.ofMillis(500);

    private static RedisClient redis;
    private static QueueClient queue;

    private DataSource database;
    private String queueName;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    /** A database of its own per test: a relay sweeps the whole table. */
    @BeforeEach
    void freshOutbox(PostgresService postgres) {
        database = postgres.createDatabase("outbox").dataSource();
        Migrations.migrate(database);
        queueName = "outbox-" + QUEUES.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private OutboxRelay relay(QueueClient client) {
        return OutboxRelay.idle("test/" + queueName, database, client.submissions().outboxDoor(), client.outboxAdmin(), POLL);
    }

    private List<Long> write(List<JobRequest> requests) throws SQLException {
        return OutboxWriter.insert(database, requests);
    }

    private List<JobRequest> numbered(int n) {
        List<JobRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            requests.add(JobRequest.of(queueName, "{\"n\":" + i + "}"));
        }
        return requests;
    }

    private long outboxRows() throws SQLException {
        return single("SELECT count(*) FROM echomq.outbox");
    }

    private long single(String sql) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<JobView> jobs(JobState state) {
        List<JobView> all = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        do {
            var page = queue.reads().jobs(queueName, state, cursor, QueueReads.MAX_PAGE);
            all.addAll(page.jobs());
            cursor = page.next();
        } while (cursor.isPresent());
        return all;
    }

    @Test
    void relaysCommittedRowsWithTheirFieldsAndDeletesThem() throws SQLException {
        write(List.of(
                JobRequest.of(queueName, "{\"plain\":true}"),
                JobRequest.of(queueName, "{\"keyed\":true}").withIdempotencyKey("order-42").withLane("eu").withMaxAttempts(7)
                        .withPriority(8),
                JobRequest.of(queueName, "{\"later\":true}").withDelayMs(60_000)));

        OutboxRelay.Sweep sweep = relay(queue).sweep();

        assertThat(sweep).isEqualTo(new OutboxRelay.Sweep(3, 0, false));
        assertThat(outboxRows()).isZero();
        QueueStats stats = queue.reads().stats(queueName);
        assertThat(stats.pending()).isEqualTo(2);
        assertThat(stats.delayed()).isEqualTo(1);
        assertThat(jobs(JobState.PENDING)).anySatisfy(job -> {
            assertThat(job.payload()).isEqualTo("{\"keyed\":true}");
            assertThat(job.lane()).isEqualTo("eu");
            assertThat(job.maxAttempts()).isEqualTo(7);
            assertThat(job.priority()).isEqualTo(8);
        });
        assertThat(jobs(JobState.PENDING)).filteredOn(job -> job.payload().equals("{\"plain\":true}"))
                .singleElement().satisfies(job -> assertThat(job.priority()).isEqualTo(JobRequest.DEFAULT_PRIORITY));
        // The request's own key went with it: a resubmission answers the relayed job.
        Enqueued again = queue.submissions().enqueue(queueName, NewJob.of("{}").withIdempotencyKey("order-42"));
        assertThat(again.replayed()).isTrue();
        // And the gauges say the outbox is empty.
        assertThat(queue.outboxAdmin().gauges()).filteredOn(g -> g.source().equals("test/" + queueName))
                .singleElement().satisfies(g -> assertThat(g.depth()).isZero());
    }

    @Test
    void aRelayThatDiesBetweenEnqueueAndDeleteCausesNoDuplicateJob() throws SQLException {
        write(numbered(5));
        write(List.of(JobRequest.of(queueName, "{\"own\":1}").withIdempotencyKey("own-key")));

        // The first relay enqueues every row, then its DELETE fails: its transaction rolls back
        // and the rows stay, exactly as if it had died before committing.
        OutboxRelay dying = OutboxRelay.idle("test/" + queueName, FaultyDataSources.refusingDeletes(database), queue.submissions().outboxDoor(), queue.outboxAdmin(), POLL);
        try {
            dying.sweep();
        } catch (IllegalStateException expected) {
            assertThat(expected).hasMessageContaining("DELETE refused");
        }
        assertThat(outboxRows()).isEqualTo(6);
        assertThat(queue.reads().stats(queueName).pending()).isEqualTo(6);

        OutboxRelay.Sweep second = relay(queue).sweep();

        assertThat(second.relayed()).isEqualTo(6);
        assertThat(outboxRows()).isZero();
        assertThat(queue.reads().stats(queueName).total()).as("one job per row, the resend answered by its key").isEqualTo(6);
    }

    @Test
    void twoRelaysConcurrentlyTurnEachOfAThousandRowsIntoExactlyOneJob() throws Exception {
        write(numbered(1_000));
        OutboxRelay a = relay(queue);
        OutboxRelay b = OutboxRelay.idle("test/" + queueName, database, queue.submissions().outboxDoor(), queue.outboxAdmin(), POLL);
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> first = two.submit(drain(a));
            Future<Integer> second = two.submit(drain(b));
            assertThat(first.get() + second.get()).isEqualTo(1_000);
        } finally {
            two.shutdownNow();
        }

        assertThat(outboxRows()).isZero();
        List<JobView> pending = jobs(JobState.PENDING);
        assertThat(pending).hasSize(1_000);
        Set<String> payloads = new HashSet<>();
        pending.forEach(job -> payloads.add(job.payload()));
        assertThat(payloads).as("every row once").hasSize(1_000);
    }

    @Test
    void rowsStayWithAttemptsAndTheErrorWhileValkeyIsDownAndGoThroughOnceItIsBack(ValkeyService valkey) throws Exception {
        write(numbered(5));
        try (FaultProxy toValkey = FaultProxy.to(valkey.host(), valkey.port());
             RedisClient viaProxy = RedisClient.builder().hostAndPort(valkey.host(), toValkey.port())
                     .clientConfig(valkey.clientConfig()).build()) {
            QueueClient unreachable = QueueClient.connect(viaProxy, QueueSettings.DEFAULT);
            toValkey.close(); // Valkey is gone: open connections cut, new ones refused

            // A relay whose rows die at their first refusal: an outage must cost them nothing.
            OutboxRelay down = OutboxRelay.idle(source(), database, unreachable.submissions().outboxDoor(), unreachable.outboxAdmin(), POLL,
                    new OutboxRelay.RetryPolicy(1, Duration.ZERO, Duration.ZERO));
            assertThat(down.sweep().valkeyUnavailable()).isTrue();
            assertThat(down.sweep().valkeyUnavailable()).isTrue();
        }

        assertThat(outboxRows()).isEqualTo(5);
        assertThat(single("SELECT min(attempts) FROM echomq.outbox")).isEqualTo(2);
        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE last_error IS NOT NULL")).isEqualTo(5);
        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE refusals > 0 OR next_attempt_at IS NOT NULL OR dead_at IS NOT NULL"))
                .as("no row is blamed for an outage").isZero();
        assertThat(queue.reads().stats(queueName).total()).isZero();

        // Valkey is back (the same relay's client would reconnect; here a second relay with a working one).
        OutboxRelay.Sweep back = relay(queue).sweep();

        assertThat(back).isEqualTo(new OutboxRelay.Sweep(5, 0, false));
        assertThat(outboxRows()).isZero();
        assertThat(queue.reads().stats(queueName).pending()).isEqualTo(5);
    }

    @Test
    void aRowValkeyRefusesIsKeptCountedAndShownInTheGauges() throws SQLException {
        // Written past the checks (as a node with looser limits could): the relay must not drop it.
        try (Connection c = database.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO echomq.outbox (queue, payload, lane) VALUES (?, '{}', '{bad}')")) {
            insert.setString(1, queueName);
            insert.executeUpdate();
        }
        write(numbered(2));

        OutboxRelay.Sweep sweep = relay(queue).sweep();

        assertThat(sweep).isEqualTo(new OutboxRelay.Sweep(2, 1, false));
        assertThat(outboxRows()).isEqualTo(1);
        assertThat(single("SELECT attempts FROM echomq.outbox")).isEqualTo(1);
        List<OutboxGauge> gauges = queue.outboxAdmin().gauges();
        assertThat(gauges).filteredOn(g -> g.source().equals("test/" + queueName)).singleElement().satisfies(g -> {
            assertThat(g.depth()).isEqualTo(1);
            assertThat(g.oldestAgeMs()).isGreaterThanOrEqualTo(0);
            assertThat(g.updatedAtMs()).isPositive();
        });
    }

    @Test
    void aHundredRefusedRowsDoNotHoldBackTheRowsBehindThem() throws SQLException {
        writeRefused(OutboxRelay.BATCH);
        write(numbered(2));

        relay(queue).sweep();

        assertThat(jobs(JobState.PENDING)).as("the two good rows behind a full batch of refused ones")
                .extracting(JobView::payload).containsExactlyInAnyOrder("{\"n\":0}", "{\"n\":1}");
        assertThat(outboxRows()).isEqualTo(OutboxRelay.BATCH);
    }

    @Test
    void aRefusedRowIsPutOffInsteadOfTriedAgainAtEverySweep() throws SQLException {
        writeRefused(1);
        OutboxRelay relay = OutboxRelay.idle(source(), database, queue.submissions().outboxDoor(), queue.outboxAdmin(), POLL,
                new OutboxRelay.RetryPolicy(10, Duration.ofHours(1), Duration.ofHours(2)));

        assertThat(relay.sweep()).isEqualTo(new OutboxRelay.Sweep(0, 1, false));
        assertThat(relay.sweep()).as("within its backoff").isEqualTo(new OutboxRelay.Sweep(0, 0, false));

        assertThat(single("SELECT refusals FROM echomq.outbox")).isEqualTo(1);
        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE next_attempt_at > clock_timestamp() AND dead_at IS NULL")).isEqualTo(1);
    }

    @Test
    void aRowRefusedAtEveryTryGoesDeadAndIsReportedWithItsError() throws SQLException {
        long id = writeRefused(1).get(0);
        write(numbered(1));
        OutboxRelay relay = dyingAfter(3, queue);

        for (int sweep = 0; sweep < 3; sweep++) {
            relay.sweep();
        }

        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE dead_at IS NOT NULL AND refusals = 3")).isEqualTo(1);
        assertThat(relay.sweep()).as("a dead row is not tried again").isEqualTo(new OutboxRelay.Sweep(0, 0, false));
        assertThat(gauge().depth()).as("dead rows wait for no relay").isZero();
        OutboxDeadRows report = deadRows().orElseThrow();
        assertThat(report.count()).isEqualTo(1);
        assertThat(report.oldest()).singleElement().satisfies(row -> {
            assertThat(row.id()).isEqualTo(id);
            assertThat(row.queue()).isEqualTo(queueName);
            assertThat(row.refusals()).isEqualTo(3);
            assertThat(row.lastError()).contains("lane");
            assertThat(row.deadAtMs()).isGreaterThanOrEqualTo(row.createdAtMs());
        });
        assertThat(queue.reads().stats(queueName).pending()).as("the good row went through").isEqualTo(1);
    }

    @Test
    void anAdminRetryMakesADeadRowRelayableAgainAndItArrivesOnceTheCauseIsGone() throws SQLException {
        // Written when the limit was 1 MiB; a node with a 16-byte limit refuses it, as in a rolling deploy.
        long id = write(List.of(JobRequest.of(queueName, "{\"a payload\":\"over sixteen bytes\"}"))).get(0);
        QueueClient tight = QueueClient.connect(redis, QueueSettings.DEFAULT.withMaxPayloadBytes(16));
        OutboxRelay tightRelay = dyingAfter(2, tight);
        tightRelay.sweep();
        tightRelay.sweep();
        assertThat(deadRows()).hasValueSatisfying(report -> assertThat(report.lists(id)).isTrue());

        assertThat(queue.outboxAdmin().request(source(), id + 1, OutboxCommand.RETRY)).as("a row the report does not list").isFalse();
        assertThat(queue.outboxAdmin().request(source(), id, OutboxCommand.RETRY)).isTrue();
        assertThat(deadRows().orElseThrow().requested()).containsEntry(id, OutboxCommand.RETRY);

        // The limits agree again: the next sweep of any relay of the outbox carries the retry out and relays the row.
        OutboxRelay.Sweep sweep = relay(queue).sweep();

        assertThat(sweep.relayed()).isEqualTo(1);
        assertThat(outboxRows()).isZero();
        assertThat(jobs(JobState.PENDING)).extracting(JobView::payload).containsExactly("{\"a payload\":\"over sixteen bytes\"}");
        assertThat(deadRows()).as("no dead row left to report").isEmpty();
        assertThat(queue.outboxAdmin().requested(source())).as("the command is carried out once").isEmpty();
    }

    @Test
    void aRetriedRowThatIsStillRefusedStartsAFreshBudgetOfRefusals() throws SQLException {
        long id = writeRefused(1).get(0);
        OutboxRelay relay = dyingAfter(2, queue);
        relay.sweep();
        relay.sweep();
        queue.outboxAdmin().request(source(), id, OutboxCommand.RETRY);

        relay.sweep();

        assertThat(single("SELECT refusals FROM echomq.outbox")).as("tried again at once, refused once more").isEqualTo(1);
        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE dead_at IS NULL")).isEqualTo(1);
        assertThat(single("SELECT attempts FROM echomq.outbox")).as("every try stays counted").isEqualTo(3);
    }

    @Test
    void anAdminDropDeletesThatDeadRowOnly() throws SQLException {
        List<Long> dead = writeRefused(2);
        OutboxRelay relay = dyingAfter(1, queue);
        relay.sweep();
        assertThat(deadRows().orElseThrow().count()).isEqualTo(2);

        assertThat(queue.outboxAdmin().request(source(), dead.get(0), OutboxCommand.DROP)).isTrue();
        relay.sweep();

        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE id = " + dead.get(0))).isZero();
        assertThat(single("SELECT count(*) FROM echomq.outbox WHERE dead_at IS NOT NULL")).isEqualTo(1);
        assertThat(deadRows().orElseThrow().oldest()).extracting(row -> row.id()).containsExactly(dead.get(1));
        assertThat(queue.reads().stats(queueName).total()).as("a dropped row's job is never submitted").isZero();
        assertThat(queue.outboxAdmin().requested(source())).isEmpty();
    }

    @Test
    void aDropOfARowNoLongerDeadLeavesTheRowAlone() throws SQLException {
        long id = writeRefused(1).get(0);
        OutboxRelay relay = dyingAfter(1, queue);
        relay.sweep();
        assertThat(queue.outboxAdmin().request(source(), id, OutboxCommand.DROP)).isTrue();
        try (Connection c = database.getConnection(); PreparedStatement revive = c.prepareStatement(
                "UPDATE echomq.outbox SET dead_at = NULL, refusals = 0, next_attempt_at = clock_timestamp() + interval '1 hour'")) {
            revive.executeUpdate(); // another admin's retry, carried out first by another relay
        }

        relay.sweep();

        assertThat(outboxRows()).as("a command applies only to a row still dead").isEqualTo(1);
        assertThat(queue.outboxAdmin().requested(source())).isEmpty();
    }

    private String source() {
        return "test/" + queueName;
    }

    private OutboxRelay dyingAfter(int refusals, QueueClient client) {
        return OutboxRelay.idle(source(), database, client.submissions().outboxDoor(), client.outboxAdmin(), POLL,
                new OutboxRelay.RetryPolicy(refusals, Duration.ZERO, Duration.ZERO));
    }

    private OutboxGauge gauge() {
        return queue.outboxAdmin().gauges().stream().filter(g -> g.source().equals(source())).findFirst().orElseThrow();
    }

    private Optional<OutboxDeadRows> deadRows() {
        return queue.outboxAdmin().deadRows(source());
    }

    /** Rows Valkey refuses (a lane with braces), written past the checks as a node with looser limits could; their ids. */
    private List<Long> writeRefused(int n) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = database.getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO echomq.outbox (queue, payload, lane) SELECT ?, '{}', '{bad}' FROM generate_series(1, ?) RETURNING id")) {
            insert.setString(1, queueName);
            insert.setInt(2, n);
            try (ResultSet rs = insert.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Sweeps until the outbox is empty; returns how many rows this relay sent. */
    private Callable<Integer> drain(OutboxRelay relay) {
        return () -> {
            int total = 0;
            while (true) {
                OutboxRelay.Sweep sweep = relay.sweep();
                total += sweep.relayed();
                if (sweep.relayed() == 0 && outboxRows() == 0) {
                    return total;
                }
            }
        };
    }
}
