package io.echomq.handler;

import io.echomq.api.Job;
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
 */
public record JobContext(String queue, String jobId, long jobCreatedMs, long attempt, String lane, String payload, Handle transaction,
        JobSignals signals) {

    /** A context whose signals go nowhere (outside a worker). */
    public JobContext(String queue, String jobId, long jobCreatedMs, long attempt, String lane, String payload, Handle transaction) {
        this(queue, jobId, jobCreatedMs, attempt, lane, payload, transaction, JobSignals.NONE);
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
     */
    public List<FlowChild> children() {
        return signals.flowChildren().stream().filter(child -> !child.dropped()).toList();
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
