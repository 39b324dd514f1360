package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario flow-kill-9: flows of a parent and ten children over two queues (the parent and five
 * children on one, five children on the other), worked by two worker JVMs that are killed with
 * SIGKILL while they run, one at a time, and started again. The kills land anywhere: inside a
 * child's effect transaction, between a child's settlement and its notice's application, between
 * the parent's mark and the notice's acknowledgement. Afterwards every job's effect is in the
 * ledger once (lost=0, duplicates=0), every parent ran only after each of its children's effects
 * had committed and its outcome was recorded (parents_early=0), and no parent is left waiting
 * (parents_stuck=0).
 */
@WithRealServices
class FlowKillReliabilityTest {

    /** The published size in every build (about 40 s here): the flow-kill-9 line in the CI log is the proof a reader checks. */
    private static final int FLOWS = 1_000;
    private static final int CHILDREN = 10;
    private static final int KILLS = ReliabilitySize.pick(4, 10);
    private static final Duration LEASE = Duration.ofSeconds(1);

    @Test
    void everyFlowRunsItsParentOnceAfterAllItsChildrenWhateverWorkersAreKilled(ValkeyService valkey, PostgresService postgres)
            throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "flowkill");
        Jdbi ledger = Jdbi.create(database.dataSource());
        String parents = "flowp-" + ProcessHandle.current().pid();
        String others = "flowc-" + ProcessHandle.current().pid();
        Map<String, String> settings = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()),
                WorkerProcess.HANDLER, FlowLedgerHandler.class.getName());
        String bothQueues = parents + "," + others;
        List<WorkerProcess> workers = new ArrayList<>();
        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            for (int w = 0; w < 2; w++) {
                workers.add(startWorker(valkey, database, bothQueues, settings, w));
            }
            List<FlowSubmitted> flows = new ArrayList<>();
            Map<String, List<String>> jobsByQueue = new HashMap<>(Map.of(parents, new ArrayList<>(), others, new ArrayList<>()));
            for (int f = 0; f < FLOWS; f++) {
                FlowSubmitted flow = queue.flows().submit(flowOf(parents, others, f));
                flows.add(flow);
                jobsByQueue.get(parents).add(flow.id());
                for (FlowChild child : queue.flows().children(parents, flow.id())) {
                    jobsByQueue.get(child.queue()).add(child.jobId().orElseThrow());
                }
            }
            // Kills spread over the work: kill k once k/(KILLS+1) of all the effects are in, so each lands mid-run.
            long allJobs = (long) FLOWS * (CHILDREN + 1);
            int kills = 0;
            while (kills < KILLS) {
                long due = allJobs * (kills + 1) / (KILLS + 1);
                await("effects applied before kill " + (kills + 1)).atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(10))
                        .until(() -> ledgerRows(ledger) >= due);
                int victim = kills % workers.size();
                workers.get(victim).killHard();
                workers.set(victim, startWorker(valkey, database, bothQueues, settings, 2 + kills));
                kills++;
            }
            long stuck = awaitParentsDone(queue, parents, others, flows);

            Map<String, Long> parentRows = ReliabilityChecker.effectsPerJob(ledger, parents);
            Map<String, Long> childRows = ReliabilityChecker.effectsPerJob(ledger, others);
            long lost = 0;
            long duplicates = 0;
            for (Map.Entry<String, List<String>> jobs : jobsByQueue.entrySet()) {
                Map<String, Long> rows = jobs.getKey().equals(parents) ? parentRows : childRows;
                lost += jobs.getValue().stream().filter(id -> !rows.containsKey(id)).count();
                duplicates += jobs.getValue().stream().mapToLong(id -> Math.max(0, rows.getOrDefault(id, 0L) - 1)).sum();
            }
            long early = ledger.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE account = :early")
                    .bind("early", FlowLedgerHandler.EARLY).mapTo(Long.class).one());
            System.out.println("reliability scenario=flow-kill-9 flows=" + FLOWS + " children=" + FLOWS * CHILDREN + " kills=" + kills
                    + " lost=" + lost + " duplicates=" + duplicates + " parents_early=" + early + " parents_stuck=" + stuck);

            assertThat(kills).isEqualTo(KILLS);
            assertThat(lost).as("jobs without an effect").isZero();
            assertThat(duplicates).as("effects applied twice").isZero();
            assertThat(early).as("parents that ran before all their children settled").isZero();
            assertThat(stuck).as("parents not completed").isZero();
        } finally {
            for (WorkerProcess worker : workers) {
                worker.close();
            }
        }
    }

    /** A worker JVM draining both queues ({@code queues}: their names joined by commas), with the relay and repair of both. */
    private static WorkerProcess startWorker(ValkeyService valkey, PostgresService.Database database, String queues,
            Map<String, String> settings, int n) throws Exception {
        WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queues, settings, Scenarios.output("flow-worker-" + n));
        worker.awaitLine("event=started", Scenarios.WORKER_START);
        return worker;
    }

    /** Flow f: its parent and five children on {@code parents}, five children on {@code others}. */
    private static NewFlow flowOf(String parents, String others, int f) {
        List<NewFlow> children = new ArrayList<>();
        for (int c = 0; c < CHILDREN; c++) {
            children.add(NewFlow.of(c % 2 == 0 ? parents : others, NewJob.of("{\"flow\":" + f + ",\"child\":" + c + "}")
                    .withMaxAttempts(SubmissionLoad.MAX_ATTEMPTS)));
        }
        return new NewFlow(parents, NewJob.of("{\"flow\":" + f + "}").withMaxAttempts(SubmissionLoad.MAX_ATTEMPTS), null, children);
    }

    /** Waits until every parent completed (or three minutes passed); returns how many did not. */
    private static long awaitParentsDone(QueueClient queue, String parents, String others, List<FlowSubmitted> flows) {
        try {
            await("every flow's parent completed").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
                QueueStats p = queue.reads().stats(parents);
                QueueStats c = queue.reads().stats(others);
                return p.waitingChildren() + p.pending() + p.active() + p.delayed() + c.pending() + c.active() + c.delayed() == 0;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // Counted below and asserted: the line is printed either way.
        }
        return flows.stream().filter(flow -> queue.reads().job(parents, flow.id()).map(j -> j.state() != JobState.COMPLETED).orElse(true))
                .count();
    }

    private static long ledgerRows(Jdbi ledger) {
        return ledger.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger").mapTo(Long.class).one());
    }
}
