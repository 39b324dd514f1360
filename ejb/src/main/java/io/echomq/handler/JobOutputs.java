package io.echomq.handler;

import io.echomq.api.JobRequest;
import jakarta.json.JsonValue;

/**
 * What a running handler adds to its job's effect transaction besides its own SQL: follow-up
 * jobs and a result. Both commit with the effect or not at all. The worker implements it for
 * each run of a handler; {@link JobContext#followUp} and {@link JobContext#result} are the
 * handler's way in.
 */
public interface JobOutputs {

    /** The largest result, in UTF-8 bytes of its JSON text: a result is a summary, not a payload store. */
    int MAX_RESULT_BYTES = 64 * 1024;

    /** See {@link JobContext#followUp(String, JobRequest)}. */
    void followUp(String step, JobRequest request);

    /** See {@link JobContext#result(JsonValue)}. */
    void result(JsonValue result);

    /** Outputs of a context built outside a worker (tests, benchmarks): there is no effect transaction to write them in. */
    JobOutputs NONE = new JobOutputs() {
        @Override
        public void followUp(String step, JobRequest request) {
            throw new IllegalStateException("follow-up jobs are written by a worker's effect transaction; this context has none");
        }

        @Override
        public void result(JsonValue result) {
            throw new IllegalStateException("a result is written by a worker's effect transaction; this context has none");
        }
    };
}
