package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.handler.JobHandler;
import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A flow parent's handler reads its children's results, with the real worker, queue, flow relay
 * and effect store: each result is the one its child committed with its effect.
 */
@WithRealServices
class FlowChildResultsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private Engine engine;
    /** What the parent's handler was shown, written by its worker thread, read by the test. */
    private final List<List<FlowChild>> seenByParent = new CopyOnWriteArrayList<>();

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    /** A row job counts its row's letters as its result, except "silent", which sets none; "summary" keeps what it sees. */
    private JobHandler rowsAndSummary() {
        return job -> {
            if (job.payload().equals("\"summary\"")) {
                seenByParent.add(job.children());
            } else if (!job.payload().equals("\"silent\"")) {
                job.result(Json.createObjectBuilder().add("letters", job.payload().length() - 2).build());
            }
        };
    }

    @Test
    void aParentsHandlerReadsEachChildsCommittedResultBesideItsOutcome() {
        engine.startMaintenance(Duration.ofMillis(50));
        engine.startWorker("w1", rowsAndSummary(), WorkerSettings.DEFAULT.withConcurrency(2).withIdlePoll(Duration.ofMillis(20)),
                FaultInjector.NONE);
        String q = engine.queueName;
        FlowSubmitted parent = engine.queue.flows().submit(NewFlow.of(q, NewJob.of("\"summary\""),
                NewFlow.of(q, NewJob.of("\"abc\"")), NewFlow.of(q, NewJob.of("\"silent\"")), NewFlow.of(q, NewJob.of("\"abcdefg\""))));

        await("the parent completed").atMost(PATIENCE).until(
                () -> engine.queue.reads().job(q, parent.id()).map(j -> j.state() == JobState.COMPLETED).orElse(false));

        assertThat(seenByParent).hasSize(1);
        assertThat(seenByParent.get(0)).extracting(FlowChild::index, FlowChild::outcome, FlowChild::result).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0, Optional.of("completed"), Optional.of(letters(3))),
                org.assertj.core.groups.Tuple.tuple(1, Optional.of("completed"), Optional.empty()),
                org.assertj.core.groups.Tuple.tuple(2, Optional.of("completed"), Optional.of(letters(7))));
    }

    private static JsonValue letters(int n) {
        return Json.createObjectBuilder().add("letters", n).build();
    }
}
