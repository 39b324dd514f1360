package io.echomq.handler;

import io.echomq.api.Job;
import io.echomq.api.JobRequest;
import io.echomq.api.PermanentJobFailure;
import io.echomq.queue.FlowChild;
import jakarta.json.JsonValue;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * What a handler gets for one delivery of a job. Valid only during the handler call.
 *
 * @param queue        the queue the job came from
 * @param jobId        the job's id, stable across deliveries
 * @param jobCreatedMs when the job was submitted (ms, Valkey's clock); with the id it names the
 *                     job even if a failover hands the id out again
 * @param attempt      which delivery this is (1 for the first); the fencing token of this lease
 * @param lane         the job's fairness lane
 * @param payload      the payload as submitted (JSON by convention)
 * @param transaction  the open transaction that also records this job's effect
 * @param signals      what the handler tells its worker (progress), sent with the lease's heartbeat
 * @param outputs      the follow-up jobs and the result the handler adds to its effect transaction
 */
public record JobContext(String queue, String jobId, long jobCreatedMs, long attempt, String lane, String payload, Handle transaction,
        JobSignals signals, JobOutputs outputs) {

    /** A context whose signals go nowhere (outside a worker). */
    public JobContext(String queue, String jobId, long jobCreatedMs, long attempt, String lane, String payload, Handle transaction) {
        this(queue, jobId, jobCreatedMs, attempt, lane, payload, transaction, JobSignals.NONE);
    }

    /** A context with no outputs (outside a worker): follow-ups and results are refused. */
    public JobContext(String queue, String jobId, long jobCreatedMs, long attempt, String lane, String payload, Handle transaction,
            JobSignals signals) {
        this(queue, jobId, jobCreatedMs, attempt, lane, payload, transaction, signals, JobOutputs.NONE);
    }

    /**
     * Reports progress: a whole percent (0 to 100) and a short message, e.g.
     * {@code job.progress(42, "resizing")}. Cheap to call often: only the latest report is sent,
     * with the lease's next heartbeat tick (within about a second), fenced by the lease.
     * The job's detail shows it, with the attempt that reported it.
     *
     * @throws IllegalArgumentException when the percent is outside 0..100
     */
    public void progress(int percent, String message) {
        signals.progress(percent, message);
    }

    /**
     * Whether an operator asked to cancel this job while it runs (learned with the lease's
     * heartbeat, so within a heartbeat interval of the request). To stop, throw
     * {@link JobCancelledException} (or call {@link #stopIfCancelRequested()}): the effect
     * transaction rolls back and the job ends {@code cancelled}. Returning normally commits the
     * effect and the job ends {@code completed}.
     */
    public boolean cancelRequested() {
        return signals.cancelRequested();
    }

    /** Stops the job if its cancel was requested: throws {@link JobCancelledException}, else returns. */
    public void stopIfCancelRequested() {
        if (cancelRequested()) {
            throw new JobCancelledException("job " + jobId + " of queue '" + queue + "' stopped: its cancel was requested");
        }
    }

    // ---- flows (issue 36, parent and children) ----

    /**
     * A flow parent's children, in the order submitted, with each one's outcome
     * ({@code completed}, {@code dead}, {@code cancelled}): a parent runs once every child
     * settled, so each has one. Children its policy {@link io.echomq.queue.ChildFailure#DROP
     * dropped} are left out. Empty for a job that is no flow parent. Read from Valkey when called.
     *
     * <p>Each child carries its {@link FlowChild#result() result}: what its handler set with
     * {@link #result}, read from the child's effect row in this job's own effect transaction.
     * A child's row stays while Valkey holds its parent unfinished, so a parent always finds the
     * results of its children that completed (docs/ARCHITECTURE.md, F7).
     */
    public List<FlowChild> children() {
        return signals.flowChildren().stream().filter(child -> !child.dropped()).toList();
    }

    // Follow-up jobs and the result: what the handler adds to its effect transaction (JobOutputs).

    /**
     * Enqueues {@code request} as this job's follow-up named {@code step}, e.g.
     * {@code job.followUp("render-invoice", JobRequest.of("invoices", payload))}. The job is
     * written to the outbox in this job's effect transaction, so it reaches Valkey only if the
     * effect commits (the relay sends it within milliseconds of the commit), and under the key
     * {@link Job#followUpKey(String)}, which names the job and the step, never the attempt: a
     * redelivered job makes each follow-up exactly once. Checked in full now, by the target
     * queue's own rules.
     *
     * @param step    names the follow-up among this job's: 1 to {@value Job#MAX_STEP_CHARS}
     *                characters, no control characters, each step once per run
     * @param request the job to enqueue, with no idempotency key of its own
     * @throws IllegalArgumentException a bad step (the message starts with {@code step}) or request (with its field)
     */
    public void followUp(String step, JobRequest request) {
        outputs.followUp(step, request);
    }

    /** {@link #followUp(String, JobRequest)} of {@code JobRequest.of(queue, payload)}. */
    public void followUp(String step, String queue, String payload) {
        followUp(step, JobRequest.of(queue, payload));
    }

    /**
     * Sets this job's result: a small JSON value, at most {@value JobOutputs#MAX_RESULT_BYTES}
     * bytes, stored in the job's effect row when the effect commits (so exactly as durable and as
     * single as the effect), and shown by the API and the console. The last call wins.
     *
     * @throws IllegalArgumentException null or too large; the message starts with {@code result}
     */
    public void result(JsonValue result) {
        outputs.result(result);
    }

    /** The delivery as the API's {@link Job}, which an MDB handler receives; the one owner of the payload rules below. */
    public Job job() {
        return new Job(queue, jobId, jobCreatedMs, attempt, lane, payload);
    }

    /** See {@link Job#idempotencyKey()}. */
    public String idempotencyKey() {
        return job().idempotencyKey();
    }

    /** The payload parsed as JSON (JSON-P). */
    public JsonValue json() throws PermanentJobFailure {
        return job().json();
    }

    /** The payload bound to {@code type} (JSON-B). A payload that does not bind is a permanent failure. */
    public <T> T payloadAs(Class<T> type) throws PermanentJobFailure {
        return job().payloadAs(type);
    }
}
