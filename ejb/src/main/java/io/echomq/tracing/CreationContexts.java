package io.echomq.tracing;

import java.util.List;

/** Reads the creation context stored with each of a queue's jobs. */
@FunctionalInterface
public interface CreationContexts {

    /** One entry per id, in order: the stored context, or null when the job has none (created untraced, or gone). */
    List<String> of(List<String> jobIds);
}
