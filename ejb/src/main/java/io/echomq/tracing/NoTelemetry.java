package io.echomq.tracing;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/** Telemetry off: every call goes straight through, and nothing is allocated or stored. */
enum NoTelemetry implements JobTelemetry, Deliveries, Processing {
    INSTANCE;

    @Override
    public List<Enqueued> creating(String queue, int jobs, Function<String, List<Enqueued>> send) {
        return send.apply("");
    }

    @Override
    public <T> T firing(String queue, String schedule, int slots, Function<String, T> fire) {
        return fire.apply("");
    }

    @Override
    public Deliveries deliveries(String queue, Duration lease, CreationContexts stored) {
        return this;
    }

    @Override
    public Processing processing(ClaimedJob job) {
        return this;
    }

    @Override
    public Processing processingBatch(List<ClaimedJob> jobs) {
        return this;
    }

    @Override
    public boolean on() {
        return false;
    }

    @Override
    public <T> T effect(Supplier<T> transaction) {
        return transaction.get();
    }

    @Override
    public void settling(ClaimedJob job, String errorType) {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "off";
    }
}
