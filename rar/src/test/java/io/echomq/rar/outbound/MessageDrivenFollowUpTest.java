package io.echomq.rar.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.Job;
import io.echomq.api.JobQueueException;
import io.echomq.api.JobRequest;
import io.echomq.api.Submission;
import io.echomq.effect.Migrations;
import io.echomq.outbox.OutboxRelay;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * A message-driven bean's follow-ups ({@code JobQueueConnection.followUp}) go through the
 * engine's one outbox, under the engine's one key rule: a bean whose job is delivered again and
 * writes its follow-up again makes one job. The JTA transaction is a stand-in that says it is
 * active (the container's own is exercised by the Orders ITs); the rows are real, and relayed by
 * the real relay to the real Valkey.
 */
@WithRealServices
class MessageDrivenFollowUpTest {

    private static RedisClient redis;
    private static QueueClient queue;

    private String queueName;
    private DataSource database;
    private OutboxRelay relay;
    private ActiveTransaction transaction;

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
        queueName = "mdb-followup-" + UUID.randomUUID().toString().substring(0, 8);
        database = postgres.createDatabase("mdb").dataSource();
        Migrations.migrate(database);
        relay = OutboxRelay.idle("test/" + queueName, database, queue.submissions().outboxDoor(), queue.outboxAdmin(), Duration.ofMinutes(1));
        transaction = new ActiveTransaction();
    }

    private OutboundEnqueuer enqueuer(TransactionSynchronizationRegistry registry) {
        return new OutboundEnqueuer(QueueShards.none(queue), registry, () -> relay);
    }

    private List<JobView> pending() {
        return queue.reads().jobs(queueName, JobState.PENDING, Optional.empty(), 100).jobs();
    }

    @Test
    void aRedeliveredBeansFollowUpIsOneJobUnderTheEnginesKey() {
        Job order = new Job("orders", "41", 1_765_000_000_000L, 1, "default", "{}");
        Job orderAgain = new Job("orders", "41", 1_765_000_000_000L, 2, "default", "{}");

        Submission first = enqueuer(transaction).followUp(order, "render-invoice", JobRequest.of(queueName, "{\"n\":1}"));
        // The same job delivered again (its first transaction's fate unknown to the bean) writes the same follow-up again.
        enqueuer(transaction).followUp(orderAgain, "render-invoice", JobRequest.of(queueName, "{\"n\":1}"));
        relay.sweep();

        assertThat(first.afterCommit()).as("written to the outbox, sent after the commit").isTrue();
        assertThat(transaction.synchronizations).as("the relay is woken once per transaction").hasSize(1);
        assertThat(pending()).singleElement().satisfies(job -> {
            assertThat(job.idempotencyKey()).contains(order.followUpKey("render-invoice"))
                    .contains("followup:orders:41:1765000000000:render-invoice");
            assertThat(job.payload()).isEqualTo("{\"n\":1}");
        });
    }

    @Test
    void outsideATransactionAFollowUpIsRefusedAndNothingIsWritten() {
        Job order = new Job("orders", "42", 1_765_000_000_000L, 1, "default", "{}");
        transaction.status = Status.STATUS_NO_TRANSACTION;

        assertThatThrownBy(() -> enqueuer(transaction).followUp(order, "render-invoice", JobRequest.of(queueName, "{}")))
                .isInstanceOf(JobQueueException.class).hasMessageContaining("no active transaction");
        assertThatThrownBy(() -> enqueuer(null).followUp(order, "render-invoice", JobRequest.of(queueName, "{}")))
                .isInstanceOf(JobQueueException.class);
        relay.sweep();
        assertThat(pending()).isEmpty();
    }

    @Test
    void badStepsAndRequestsAreRefusedNamingTheField() {
        Job order = new Job("orders", "43", 1_765_000_000_000L, 1, "default", "{}");
        OutboundEnqueuer enqueuer = enqueuer(transaction);

        assertRefused(() -> enqueuer.followUp(order, "", JobRequest.of(queueName, "{}")), "step");
        assertRefused(() -> enqueuer.followUp(order, "a\tb", JobRequest.of(queueName, "{}")), "step");
        assertRefused(() -> enqueuer.followUp(order, "s".repeat(Job.MAX_STEP_CHARS + 1), JobRequest.of(queueName, "{}")), "step");
        assertRefused(() -> enqueuer.followUp(order, "keyed", JobRequest.of(queueName, "{}").withIdempotencyKey("k")), "idempotencyKey");
        assertRefused(() -> enqueuer.followUp(order, "laned", JobRequest.of(queueName, "{}").withLane("{tag}")), "lane");
        assertRefused(() -> enqueuer.followUp(null, "step", JobRequest.of(queueName, "{}")), "job");
        relay.sweep();
        assertThat(pending()).isEmpty();
    }

    private static void assertRefused(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field + ": ");
    }

    /** The container's registry as an active transaction sees it; its resources and synchronizations are kept to be looked at. */
    private static final class ActiveTransaction implements TransactionSynchronizationRegistry {
        int status = Status.STATUS_ACTIVE;
        final Map<Object, Object> resources = new HashMap<>();
        final List<Synchronization> synchronizations = new ArrayList<>();

        @Override
        public Object getTransactionKey() {
            return this;
        }

        @Override
        public void putResource(Object key, Object value) {
            resources.put(key, value);
        }

        @Override
        public Object getResource(Object key) {
            return resources.get(key);
        }

        @Override
        public void registerInterposedSynchronization(Synchronization sync) {
            synchronizations.add(sync);
        }

        @Override
        public int getTransactionStatus() {
            return status;
        }

        @Override
        public void setRollbackOnly() {
            status = Status.STATUS_MARKED_ROLLBACK;
        }

        @Override
        public boolean getRollbackOnly() {
            return status == Status.STATUS_MARKED_ROLLBACK;
        }
    }
}
