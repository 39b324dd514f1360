package io.echomq.queue;

import java.util.Objects;

/**
 * The acknowledgement of a submission.
 *
 * @param state    the job's state; {@code null} only for {@link Outcome#THROTTLED} when the
 *                 window's job was deleted since (it finished and retention or an operator removed it)
 * @param replayed true when the idempotency key was already known: {@code id} and {@code state}
 *                 are the first job's, and nothing was created (the same as {@code outcome == DUPLICATE})
 * @param outcome  what the submission did
 */
public record Enqueued(String queue, String id, JobState state, boolean replayed, Outcome outcome) {

    /** What a submission did. */
    public enum Outcome implements WireName {
        /** A new job was made. */
        CREATED,
        /** The idempotency key was known: the answer is its job, nothing changed. */
        DUPLICATE,
        /** Debounce: the dedupe window's waiting job took this submission's payload and waits a window again. */
        REPLACED,
        /** Throttle: the dedupe window's job was made by an earlier submission; nothing changed. */
        THROTTLED
    }

    public Enqueued {
        Objects.requireNonNull(outcome, "outcome");
        if (replayed != (outcome == Outcome.DUPLICATE)) {
            throw new IllegalArgumentException("replayed is " + replayed + " for outcome " + outcome);
        }
    }

    /** A job made ({@code replayed} false) or an idempotency key's first job ({@code replayed} true). */
    public Enqueued(String queue, String id, JobState state, boolean replayed) {
        this(queue, id, state, replayed, replayed ? Outcome.DUPLICATE : Outcome.CREATED);
    }

    /** True when this submission made a new job. */
    public boolean created() {
        return outcome == Outcome.CREATED;
    }
}
