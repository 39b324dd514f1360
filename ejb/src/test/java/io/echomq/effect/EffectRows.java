package io.echomq.effect;

import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** Where the effect table (partitioned by job creation time, V12) keeps a job's row. */
public final class EffectRows {

    private EffectRows() {
    }

    /** The partition holding the effect row of job {@code jobId} of {@code queue} ({@code echomq.effect_p…}, {@code echomq.effect_default}), if it has one. */
    public static Optional<String> partitionOf(Jdbi jdbi, String queue, String jobId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT tableoid::regclass::text FROM echomq.effect WHERE queue = :q AND job_id = :j")
                .bind("q", queue).bind("j", Long.parseLong(jobId)).mapTo(String.class).findOne());
    }
}
