package io.echomq.rar.outbound;

import io.echomq.api.FlowRequest;
import io.echomq.api.Job;
import io.echomq.api.JobQueueException;
import io.echomq.api.JobRequest;
import io.echomq.api.Submission;
import io.echomq.outbox.JobRequests;
import io.echomq.outbox.OutboxFlows;
import io.echomq.outbox.OutboxRelay;
import io.echomq.outbox.OutboxWriter;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.Flows;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOutcomeUnknownException;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Submissions;
import io.echomq.queue.shard.QueueShards;
import io.echomq.tracing.JobTelemetry;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a {@link io.echomq.api.JobQueueConnection} does, behind the JCA plumbing: check the
 * request in full, then write it to the outbox in the caller's JTA transaction, or enqueue it to
 * Valkey at once when there is none. Thread-safe; one per connection factory.
 */
public final class OutboundEnqueuer {

    private static final Logger LOG = Logger.getLogger(OutboundEnqueuer.class.getName());

    private final QueueShards shards;
    private final Submissions submissions;
    private final Flows flows;
    private final JobTelemetry telemetry;
    private final TransactionSynchronizationRegistry transactions;
    private final Supplier<OutboxRelay> relay;

    /**
     * @param shards       the adapter's queues: a job enqueued at once goes to the shard a
     *                     submission of it reaches (a job in a transaction is routed by the relay,
     *                     over the same layouts; a flow's jobs each on its shard, see
     *                     {@link QueueShards#flows()}); the unsharded client's submissions check
     *                     requests, and its telemetry makes the {@code send} span of a job written
     *                     to the outbox
     * @param transactions the container's registry; null where there is none (every enqueue is direct)
     * @param relay        the relay of the factory's data source, asked for on the first enqueue
     *                     inside a transaction (it looks the data source up and migrates it)
     */
    public OutboundEnqueuer(QueueShards shards, TransactionSynchronizationRegistry transactions, Supplier<OutboxRelay> relay) {
        QueueClient queue = shards.unsharded();
        this.shards = shards;
        this.submissions = queue.submissions();
        this.flows = shards.flows();
        this.telemetry = queue.telemetry();
        this.transactions = transactions;
        this.relay = relay;
    }

    public Submission enqueue(JobRequest request) {
        NewJob job = JobRequests.checked(submissions, request);
        if (inTransaction()) {
            OutboxWriter.checkStorable(List.of(request), false);
            long id = toOutbox(List.of(request), null).get(0);
            return inOutbox(request.queue(), id);
        }
        boolean keyed = request.idempotencyKey() != null;
        try {
            Enqueued enqueued = shards.enqueue(request.queue(), job);
            return new Submission(enqueued.queue(), enqueued.id(), null, false, enqueued.replayed());
        } catch (QueueUnavailableException e) {
            throw failed(e, keyed);
        }
    }

    public List<Submission> enqueueBatch(List<JobRequest> requests) {
        List<NewJob> jobs = JobRequests.checkedBatch(submissions, requests);
        if (inTransaction()) {
            OutboxWriter.checkStorable(requests, true);
            List<Long> ids = toOutbox(requests, null);
            List<Submission> stored = new ArrayList<>(ids.size());
            for (int i = 0; i < ids.size(); i++) {
                stored.add(inOutbox(requests.get(i).queue(), ids.get(i)));
            }
            return stored;
        }
        String queueName = requests.get(0).queue();
        for (int i = 1; i < requests.size(); i++) {
            if (!requests.get(i).queue().equals(queueName)) {
                throw new IllegalArgumentException("requests[" + i + "].queue: outside a transaction a batch goes to one queue "
                        + "(one atomic script), and requests[0] names '" + queueName + "'; enqueue inside a transaction to mix queues");
            }
        }
        boolean keyed = requests.stream().allMatch(r -> r.idempotencyKey() != null);
        try {
            return shards.enqueueBatch(queueName, jobs).stream()
                    .map(e -> new Submission(e.queue(), e.id(), null, false, e.replayed()))
                    .toList();
        } catch (QueueUnavailableException e) {
            throw failed(e, keyed);
        }
    }

    /**
     * A flow: one outbox row in the caller's transaction (the children in its {@code flow}
     * column), submitted whole by the relay under the row's key; at once outside a transaction.
     */
    public Submission submitFlow(FlowRequest flow) {
        NewFlow checked = JobRequests.checkedFlow(flows, flow);
        if (inTransaction()) {
            OutboxWriter.checkStorable(flow);
            long id = toOutbox(List.of(flow.job()), List.of(OutboxFlows.encodeChildren(flow))).get(0);
            return inOutbox(flow.job().queue(), id);
        }
        boolean keyed = flow.job().idempotencyKey() != null;
        try {
            FlowSubmitted root = flows.submit(checked);
            return new Submission(root.queue(), root.id(), null, false, root.replayed());
        } catch (QueueUnavailableException e) {
            throw failed(e, keyed);
        }
    }

    /**
     * A message-driven bean's follow-up of the job it handles: the same outbox row, in the
     * delivery's transaction, under the same key ({@link JobRequests#followUp}) as a handler's
     * {@code JobContext.followUp} in the engine.
     */
    public Submission followUp(Job job, String step, JobRequest request) {
        if (job == null) {
            throw new IllegalArgumentException("job: is required (the job the bean is handling)");
        }
        JobRequest keyed = JobRequests.followUp(job, step, request);
        JobRequests.checked(submissions.outboxDoor(), keyed);
        if (!inTransaction()) {
            throw new JobQueueException("not enqueued: a follow-up is written in the transaction of the delivery of job " + job.id()
                    + ", so it exists only if that job's effect commits, and there is no active transaction; nothing was written");
        }
        OutboxWriter.checkStorable(List.of(keyed), false);
        long id = toOutbox(List.of(keyed), null).get(0);
        return inOutbox(keyed.queue(), id);
    }

    /**
     * Whether the calling thread is in an active JTA transaction.
     *
     * @throws JobQueueException the transaction can no longer commit, or is already completing
     */
    private boolean inTransaction() {
        if (transactions == null) {
            return false;
        }
        int status = transactions.getTransactionStatus();
        if (status == Status.STATUS_ACTIVE) {
            return true;
        }
        if (status == Status.STATUS_NO_TRANSACTION) {
            return false;
        }
        if (status == Status.STATUS_MARKED_ROLLBACK) {
            throw new JobQueueException("not enqueued: the caller's transaction is marked for rollback, so a job written in it "
                    + "would never exist; nothing was written");
        }
        throw new JobQueueException("not enqueued: the caller's transaction is " + statusName(status)
                + ", not active; enqueue while it is active, or outside any transaction; nothing was written");
    }

    /** What a write to the outbox answers: the row's id, no job id yet (the relay makes the job after the commit). */
    private static Submission inOutbox(String queue, long outboxRowId) {
        return new Submission(queue, null, Long.toString(outboxRowId), true, false);
    }

    /** @param flowColumns per request, the children of the flow it is the root of; null for plain jobs */
    private List<Long> toOutbox(List<JobRequest> requests, List<String> flowColumns) {
        OutboxRelay outbox;
        try {
            outbox = relay.get();
        } catch (RuntimeException e) {
            throw new JobQueueException("not enqueued: the outbox's data source cannot be used: " + e.getMessage(), e);
        }
        List<Long> ids;
        try {
            // The send span of the write: its context goes on the rows, and the relay sends them in its trace.
            ids = telemetry.storing(requests.get(0).queue(), requests.size(), context -> insert(outbox, requests, flowColumns, context));
        } catch (OutboxWriteFailed e) {
            throw new JobQueueException("not enqueued: the outbox row could not be written (" + e.getCause().getMessage()
                    + "); roll the transaction back, or retry the enqueue in it", e.getCause());
        }
        // One synchronization per transaction and outbox, however many enqueues it makes.
        if (transactions.getResource(outbox) == null) {
            transactions.putResource(outbox, Boolean.TRUE);
            transactions.registerInterposedSynchronization(new RelayAfterCommit(outbox));
        }
        return ids;
    }

    private static List<Long> insert(OutboxRelay outbox, List<JobRequest> requests, List<String> flowColumns, String context) {
        try {
            return OutboxWriter.insert(outbox.dataSource(), requests, flowColumns, context);
        } catch (SQLException e) {
            throw new OutboxWriteFailed(e);
        }
    }

    /** The outbox's SQL failure, carried out of the send span's callback. */
    private static final class OutboxWriteFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OutboxWriteFailed(SQLException cause) {
            super(cause);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }

    /** Wakes the relay once the caller's transaction committed: the rows go to Valkey within milliseconds. */
    private record RelayAfterCommit(OutboxRelay relay) implements Synchronization {

        @Override
        public void beforeCompletion() {
            // nothing: the rows commit with the caller's writes
        }

        @Override
        public void afterCompletion(int status) {
            if (status != Status.STATUS_COMMITTED) {
                return;
            }
            try {
                relay.wake(); // hands the sweep to the relay's thread; never blocks the committing one
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "EchoMQ outbox " + relay.name() + ": the relay was not woken after a commit; "
                        + "the next sweep sends the rows", e);
            }
        }
    }

    private static JobQueueException failed(QueueUnavailableException e, boolean keyed) {
        if (e instanceof QueueOutcomeUnknownException) {
            return new JobQueueException("outcome unknown: the request reached Valkey but its reply was lost, so the job may exist; "
                    + (keyed ? "retrying with the same idempotency key is safe"
                    : "retrying may enqueue it twice (give requests an idempotency key to make retries safe)")
                    + " (" + e.getMessage() + ")", e);
        }
        return new JobQueueException("not enqueued: Valkey is unavailable (" + e.getMessage() + "); retrying is safe", e);
    }

    private static String statusName(int status) {
        return switch (status) {
            case Status.STATUS_PREPARING -> "preparing";
            case Status.STATUS_PREPARED -> "prepared";
            case Status.STATUS_COMMITTING -> "committing";
            case Status.STATUS_COMMITTED -> "committed";
            case Status.STATUS_ROLLING_BACK -> "rolling back";
            case Status.STATUS_ROLLEDBACK -> "rolled back";
            default -> "in an unknown state (" + status + ")";
        };
    }
}
