package io.echomq.queue;

/** What a failed attempt means for the job's remaining attempts (the retry script decides by its {@linkplain #wireName() name}). */
public enum FailureKind implements WireName {

    /** The attempt counts: the job is retried after its backoff while attempts are left, else dead. */
    RETRYABLE,

    /** Retrying cannot help (the handler said so): the job goes dead at once. */
    PERMANENT,

    /**
     * The attempt never ran the handler: another transaction (an earlier attempt's zombie) held
     * the job's effect key past the lock timeout, and nothing was written. It does not count:
     * the job is retried after its backoff with its attempts intact, at most as many times in
     * its life as it had attempts, so a key that stays held still ends in dead.
     */
    CONTENDED
}
