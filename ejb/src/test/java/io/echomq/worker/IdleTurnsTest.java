package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Leases;
import io.echomq.queue.NewJob;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Idle workers of one queue take turns (issue 39): N idle workers ask the queue once per idle
 * poll between them, not N times as often, a job that arrives is still claimed at the next
 * turn, and a turn whose worker is gone only delays a job.
 */
@WithRealServices
class IdleTurnsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Duration IDLE_POLL = Duration.ofMillis(100);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";

    private Engine engine;

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    private CompletedAndClaimed idleClaim(String worker) {
        return engine.queue.leases().completeAndClaim(engine.queueName, List.of(), LEASE, 1, worker, IDLE_POLL);
    }

    private void startWorkers(int count) {
        for (int i = 0; i < count; i++) {
            engine.startWorker("idle-" + i, new LedgerChargeHandler(), WorkerSettings.DEFAULT.withIdlePoll(IDLE_POLL),
                    FaultInjector.NONE);
        }
    }

    @Test
    void idleClaimersAreHandedTurnsOneIdlePollApartAndABusyClaimBooksNone() {
        Leases leases = engine.queue.leases();
        // Not idle: books no turn (and loads the script, so the idle claims below follow each other closely).
        assertThat(leases.completeAndClaim(engine.queueName, List.of(), LEASE, 1, "not-idle").untilIdleTurn()).isZero();
        assertThat(engine.redis.exists(new QueueKeys(engine.queueName).idleTurns())).isFalse();

        long poll = IDLE_POLL.toMillis();
        List<Long> turns = new ArrayList<>();
        for (String worker : List.of("w1", "w2", "w3")) {
            long wait = idleClaim(worker).untilIdleTurn().toMillis();
            assertThat(wait).isBetween(poll, (turns.size() + 1) * poll);
            turns.add(Long.parseLong(engine.redis.get(new QueueKeys(engine.queueName).idleTurns())));
        }
        // On the server clock, each turn one idle poll after the one before: one claim per idle poll between them.
        assertThat(turns.get(1) - turns.get(0)).isEqualTo(poll);
        assertThat(turns.get(2) - turns.get(1)).isEqualTo(poll);

        engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        CompletedAndClaimed found = idleClaim("w1");
        assertThat(found.claimed()).hasSize(1);
        assertThat(found.untilIdleTurn()).isZero();
    }

    @Test
    void threeIdleWorkersClaimAboutOncePerIdlePollBetweenThemNotThreeTimes() throws InterruptedException {
        startWorkers(3);
        // Past each worker's first back-off (waits of 1, 2, 4, … ms up to the idle poll: 7 claims each).
        await().atMost(PATIENCE).until(() -> engine.events.claimCalls.size() >= 30);

        int before = engine.events.claimCalls.size();
        long start = System.nanoTime();
        // A measuring window, not a wait for an event: idle workers are asked how often they claim.
        Thread.sleep(3_000);
        double polls = (System.nanoTime() - start) / (double) IDLE_POLL.toNanos();
        int claims = engine.events.claimCalls.size() - before;

        // Taking turns: about one claim per idle poll (30 here); each worker alone would make 90.
        assertThat(claims).as("claims by 3 idle workers over %.0f idle polls", polls).isLessThanOrEqualTo((int) (polls * 1.5));
        assertThat(engine.events.claimCalls).allMatch(jobs -> jobs == 0);
    }

    @Test
    void aJobSentToIdleWorkersTakingTurnsIsClaimedAndApplied() {
        startWorkers(3);
        await().atMost(PATIENCE).until(() -> engine.redis.exists(new QueueKeys(engine.queueName).idleTurns()));

        engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        await().atMost(PATIENCE).until(() -> engine.events.completions.size() == 1);
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }

    @Test
    void turnsBookedByWorkersThatStoppedDelayAJobButNeverLoseIt() {
        startWorkers(1);
        await().atMost(PATIENCE).until(() -> engine.redis.exists(new QueueKeys(engine.queueName).idleTurns()));
        // Three workers booked the next turns and died before taking them: those claims never come.
        for (String gone : List.of("gone-1", "gone-2", "gone-3")) {
            idleClaim(gone);
        }
        engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        // The job waits in its lane's pending set through the lost turns to the live worker's, then is applied once.
        await().atMost(PATIENCE).until(() -> engine.events.completions.size() == 1);
        ClaimedJob applied = engine.events.completions.get(0);
        assertThat(applied.lease().token()).isEqualTo(1);
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }
}
