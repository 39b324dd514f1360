package io.echomq.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.engine.EngineThreads;
import io.echomq.lab.GuaranteesLab.Mode;
import io.echomq.lab.GuaranteesLab.Readout;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.RedisClient;

/** The lab's readouts equal the seed's verdicts, produced by the real queue and database. */
@WithRealServices
class GuaranteesLabTest {

    private static RedisClient redis;
    private static final ExecutorService RUNNERS = Executors.newCachedThreadPool();
    private static final EngineThreads THREADS = EngineThreads.from(RUNNERS, EngineThreads.daemonThreads("lab-timers"));
    private static GuaranteesLab lab;
    private static Jdbi jdbi;

    @BeforeAll
    static void build(ValkeyService valkey, PostgresService postgres) {
        redis = valkey.newClient();
        PostgresService.Database database = postgres.createDatabase("lab");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        jdbi = Jdbi.create(database.dataSource());
        QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        lab = new GuaranteesLab(queue, new EffectStore(jdbi, EffectSettings.DEFAULT), THREADS, jdbi);
    }

    @AfterAll
    static void close() {
        RUNNERS.shutdownNow();
        THREADS.close();
        redis.close();
    }

    @Test
    void atMostOnceLosesTheJobWhenTheWorkerDiesMidWork() throws Exception {
        Readout r = lab.run(Mode.AT_MOST_ONCE, CrashPoint.EFFECT);
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.effectsApplied()).isZero();
        assertThat(r.deliveries()).isEqualTo(1);
        assertThat(r.verdict()).startsWith("Lost");
    }

    @Test
    void atLeastOnceWithoutTheEffectStoreAppliesTheEffectTwice() throws Exception {
        Readout r = lab.run(Mode.AT_LEAST_ONCE, CrashPoint.EFFECT);
        assertThat(r.lost()).isZero();
        assertThat(r.deliveries()).isEqualTo(2);
        assertThat(r.effectsApplied()).isEqualTo(2);
        assertThat(r.completed()).isTrue();
    }

    @Test
    void theEffectStoreAbsorbsTheRedelivery() throws Exception {
        Readout r = lab.run(Mode.EFFECT_STORE, CrashPoint.EFFECT);
        assertThat(r.lost()).isZero();
        assertThat(r.deliveries()).isEqualTo(2);
        assertThat(r.effectsApplied()).isEqualTo(1);
        assertThat(r.timeline()).extracting(GuaranteesLab.Step::step).contains("crashed", "reaped", "effect skipped");
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void theEngineWorkersTimelineShowsWhereItDiedAndWhatBroughtTheJobBack(CrashPoint point) throws Exception {
        Readout r = lab.run(Mode.EFFECT_STORE, point);

        List<String> expected = switch (point) {
            case LEASE -> List.of("enqueued", "claimed", "crashed", "reaped", "claimed", "effect committed", "acknowledged");
            case EFFECT, ACK -> List.of("enqueued", "claimed", "effect committed", "crashed", "reaped", "claimed", "effect skipped",
                    "acknowledged");
            case DONE -> List.of("enqueued", "claimed", "effect committed", "crashed", "acknowledged");
        };
        assertThat(r.timeline()).extracting(GuaranteesLab.Step::step).containsExactlyElementsOf(expected);
        assertThat(r.effectsApplied()).isEqualTo(1);
        assertThat(r.completed()).isTrue();
    }

    @Test
    void crashesOutsideTheWindowAreClean() throws Exception {
        Readout lease = lab.run(Mode.EFFECT_STORE, CrashPoint.LEASE);
        assertThat(lease.lost()).isZero();
        assertThat(lease.effectsApplied()).isEqualTo(1);
        Readout done = lab.run(Mode.AT_LEAST_ONCE, CrashPoint.DONE);
        assertThat(done.deliveries()).isEqualTo(1);
        assertThat(done.effectsApplied()).isEqualTo(1);
    }

    @Test
    void labRunsLeaveNothingBehindInTheLedger() throws Exception {
        lab.run(Mode.AT_LEAST_ONCE, CrashPoint.ACK);
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE queue LIKE 'lab-%'")
                .mapTo(Integer.class).one());
        assertThat(rows).isZero();
    }
}
