package io.echomq.rar.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.FlowRequest;
import io.echomq.api.JobRequest;
import io.echomq.api.OnChildFailure;
import io.echomq.api.Submission;
import io.echomq.effect.Migrations;
import io.echomq.outbox.OutboxRelay;
import io.echomq.queue.ChildFailure;
import io.echomq.queue.FlowChild;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.FaultyDataSources;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.assertj.core.groups.Tuple;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * A flow submitted through the adapter's connection inside a transaction is one outbox row,
 * written in that transaction (the children in its {@code flow} column) and submitted whole by the
 * relay after the commit, under the row's key: a rollback makes no job, a commit exactly one
 * parent with its children, however often the row is sent. The transaction is a stand-in over a
 * real PostgreSQL ({@link EnlistingTransaction}); Valkey, the rows and the relay are real.
 */
@WithRealServices
class TransactionalFlowTest {

    private static RedisClient redis;
    private static QueueClient queue;

    private String parents;
    private String children;
    private DataSource database;
    private EnlistingTransaction transaction;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @BeforeEach
    void outbox(PostgresService postgres) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        parents = "flow-parents-" + run;
        children = "flow-children-" + run;
        database = postgres.createDatabase("flows").dataSource();
        Migrations.migrate(database);
        transaction = new EnlistingTransaction(database);
    }

    /**
     * The connection's view: rows written through the transaction's data source. Its relay is
     * stopped, as if its node died right after the commit: the test's relays sweep, as any
     * other node's would.
     */
    private OutboundEnqueuer enqueuer() {
        OutboxRelay writers = OutboxRelay.idle("test/" + parents, transaction.dataSource(), queue.submissions().outboxDoor(), queue.outboxAdmin(),
                Duration.ofMinutes(1));
        writers.close();
        return new OutboundEnqueuer(QueueShards.none(queue), transaction, () -> writers);
    }

    private OutboxRelay relay(DataSource source) {
        return OutboxRelay.idle("test/" + parents, source, queue.submissions().outboxDoor(), queue.outboxAdmin(), Duration.ofMinutes(1));
    }

    private static FlowRequest order(String parents, String children) {
        return FlowRequest.of(JobRequest.of(parents, "{\"order\":7}"),
                FlowRequest.of(JobRequest.of(children, "{\"charge\":7}")),
                FlowRequest.of(JobRequest.of(children, "{\"invoice\":7}").withLane("eu").withPriority(7)).onFailure(OnChildFailure.RUN_PARENT));
    }

    private List<JobView> jobs(String queueName, JobState state) {
        return queue.reads().jobs(queueName, state, Optional.empty(), 100).jobs();
    }

    @Test
    void aFlowSubmittedInACommittedTransactionIsOneParentWaitingForItsChildren() throws Exception {
        Submission root = enqueuer().submitFlow(order(parents, children));
        relay(database).sweep();
        assertThat(jobs(parents, JobState.WAITING_CHILDREN)).as("nothing is sent before the commit").isEmpty();

        transaction.commit();
        relay(database).sweep();

        assertThat(root.afterCommit()).isTrue();
        assertThat(root.jobId()).isNull();
        List<JobView> waiting = jobs(parents, JobState.WAITING_CHILDREN);
        assertThat(waiting).hasSize(1);
        JobView parent = waiting.get(0);
        assertThat(parent.payload()).isEqualTo("{\"order\":7}");
        assertThat(parent.idempotencyKey()).hasValueSatisfying(key -> assertThat(key).startsWith(OutboxRelay.RELAY_KEY_PREFIX));
        List<FlowChild> made = queue.flows().children(parents, parent.id());
        assertThat(made).extracting(FlowChild::queue, FlowChild::onFailure)
                .containsExactly(Tuple.tuple(children, ChildFailure.FAIL_PARENT),
                        Tuple.tuple(children, ChildFailure.RUN_PARENT));
        assertThat(jobs(children, JobState.PENDING)).extracting(JobView::payload, JobView::lane)
                .containsExactlyInAnyOrder(Tuple.tuple("{\"charge\":7}", "default"),
                        Tuple.tuple("{\"invoice\":7}", "eu"));
        assertThat(outboxRows()).isZero();
    }

    @Test
    void aRolledBackTransactionSubmitsNoFlow() throws Exception {
        enqueuer().submitFlow(order(parents, children));

        transaction.rollBack();
        relay(database).sweep();

        assertThat(jobs(parents, JobState.WAITING_CHILDREN)).isEmpty();
        assertThat(jobs(children, JobState.PENDING)).isEmpty();
        assertThat(outboxRows()).isZero();
    }

    @Test
    void aRelayThatDiesAfterSubmittingTheFlowLeavesTheRowAndItsResendMakesNoSecondFlow() throws Exception {
        enqueuer().submitFlow(order(parents, children));
        transaction.commit();

        assertThatThrownBy(() -> relay(FaultyDataSources.refusingDeletes(database)).sweep()).isInstanceOf(IllegalStateException.class);
        assertThat(jobs(parents, JobState.WAITING_CHILDREN)).as("the dying relay did submit the flow").hasSize(1);
        assertThat(outboxRows()).as("the row stays for the next sweep").isEqualTo(1);
        OutboxRelay.Sweep resend = relay(database).sweep();

        assertThat(resend.relayed()).isEqualTo(1);
        assertThat(jobs(parents, JobState.WAITING_CHILDREN)).hasSize(1);
        assertThat(jobs(children, JobState.PENDING)).hasSize(2);
        assertThat(outboxRows()).isZero();
    }

    @Test
    void outsideATransactionAFlowIsSubmittedAtOnceAndItsKeyAnswersTheFirstFlow() {
        OutboundEnqueuer direct = new OutboundEnqueuer(QueueShards.none(queue), null, () -> {
            throw new AssertionError("no transaction here: the outbox must not be used");
        });
        FlowRequest keyed = new FlowRequest(JobRequest.of(parents, "{\"order\":8}").withIdempotencyKey("order-8"), null,
                order(parents, children).children());

        Submission first = direct.submitFlow(keyed);
        Submission again = direct.submitFlow(keyed);

        assertThat(first.afterCommit()).isFalse();
        assertThat(first.jobId()).isNotNull();
        assertThat(again.jobId()).isEqualTo(first.jobId());
        assertThat(again.duplicate()).isTrue();
        assertThat(jobs(children, JobState.PENDING)).hasSize(2);
    }

    @Test
    void aBadNodeIsRefusedNamingItsFieldAndNothingIsWritten() throws Exception {
        OutboundEnqueuer enqueuer = enqueuer();
        JobRequest parent = JobRequest.of(parents, "{}");

        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent)), "children");
        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent, FlowRequest.of(JobRequest.of(children, "{}").withLane("{eu}")))),
                "children[0].lane");
        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent, FlowRequest.of(JobRequest.of(children, "{}")),
                FlowRequest.of(JobRequest.of(children, "{}").withDelayMs(5)))), "children[1].delayMs");
        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent, FlowRequest.of(JobRequest.of(children, "{}").withIdempotencyKey("k")))),
                "children[0].idempotencyKey");
        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent.withIdempotencyKey("followup:orders:1:2:x"),
                FlowRequest.of(JobRequest.of(children, "{}")))), "idempotencyKey");
        assertRefused(() -> enqueuer.submitFlow(FlowRequest.of(parent, FlowRequest.of(JobRequest.of(children, "a\u0000b")))),
                "children[0].payload");
        assertThatThrownBy(() -> FlowRequest.of(null)).hasMessageStartingWith("job: ");

        transaction.commit();
        assertThat(outboxRows()).isZero();
    }

    private static void assertRefused(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field + ": ");
    }

    private long outboxRows() throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT count(*) FROM echomq.outbox")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
