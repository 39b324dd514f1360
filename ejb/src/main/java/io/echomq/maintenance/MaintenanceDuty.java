package io.echomq.maintenance;

import java.time.Duration;

/**
 * One housekeeping duty over one queue at a time: reaping, retention, reconciling, firing
 * recurring jobs. {@link Maintenance} runs each on its own interval, catches its failures per
 * queue, and reports what it did.
 */
interface MaintenanceDuty {

    /** A short lowercase name for logs and metrics: {@code reaper}, {@code retention}, {@code reconciler}. */
    String name();

    /** The delay between two runs over every queue. */
    Duration interval();

    /**
     * One bounded run over {@code queue}.
     *
     * @return what it changed there
     * @throws RuntimeException when Valkey or PostgreSQL failed; other queues and duties go on
     */
    Pass runOnce(String queue);
}
