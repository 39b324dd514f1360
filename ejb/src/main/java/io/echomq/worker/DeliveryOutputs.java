package io.echomq.worker;

import io.echomq.api.Job;
import io.echomq.api.JobRequest;
import io.echomq.handler.JobOutputs;
import io.echomq.outbox.JobRequests;
import io.echomq.outbox.Outbox;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * What one run of a handler adds to its job's effect transaction: its follow-ups, written to the
 * outbox as the handler asks for them, and its result, kept until the handler returns. Used by
 * the runner's thread only, during one effect transaction.
 */
final class DeliveryOutputs implements JobOutputs {

    private final ClaimedJob claimed;
    private final Lease lease;
    private final Handle transaction;
    private final Outbox outbox;
    /** The steps written in this run, each naming one follow-up; made at the first (most runs make none). */
    private Set<String> steps = Set.of();
    private String result;

    DeliveryOutputs(ClaimedJob claimed, Handle transaction, Outbox outbox) {
        this.claimed = claimed;
        this.lease = claimed.lease();
        this.transaction = transaction;
        this.outbox = outbox;
    }

    @Override
    public void followUp(String step, JobRequest request) {
        JobRequest keyed = JobRequests.followUp(job(), step, request);
        if (steps.contains(step)) {
            throw new IllegalArgumentException("step: '" + step + "' is already a follow-up of job " + claimed.id()
                    + " in this run; each step names one follow-up");
        }
        outbox.write(transaction.getConnection(), keyed);
        if (steps.isEmpty()) {
            steps = new HashSet<>();
        }
        steps.add(step);
    }

    @Override
    public void result(JsonValue value) {
        if (value == null) {
            throw new IllegalArgumentException("result: must be a JSON value (JsonValue.NULL for JSON null), was null");
        }
        String json = value.toString();
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_RESULT_BYTES) {
            throw new IllegalArgumentException("result: is " + bytes + " bytes of JSON, more than the limit of " + MAX_RESULT_BYTES);
        }
        result = json;
    }

    /** The delivery as the API's job, made only for a follow-up: the key rule is {@link Job#followUpKey}. */
    private Job job() {
        return new Job(lease.queue(), claimed.id(), lease.jobCreatedMs(), claimed.attempt(), claimed.lane(), claimed.payload());
    }

    Lease lease() {
        return lease;
    }

    /** The result's JSON text, or null when the handler set none. */
    String result() {
        return result;
    }

    boolean wroteFollowUps() {
        return !steps.isEmpty();
    }
}
