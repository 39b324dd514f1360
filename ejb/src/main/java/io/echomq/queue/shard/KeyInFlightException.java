package io.echomq.queue.shard;

import io.echomq.queue.QueueUnavailableException;

/**
 * A keyed submission to a sharded queue met its key's home reserved by another submission whose
 * job is not made yet, on a shard its own lane is not on (docs/SHARDING.md, 3.1): it can be made
 * neither there nor on its own lane's shard now. Nothing was made; sending it again later is safe
 * (it is keyed), and the other submission, or the key-home sweeper after its grace, ends the
 * state. An API answers 503 with Retry-After.
 */
public final class KeyInFlightException extends QueueUnavailableException {
    private static final long serialVersionUID = 1L;

    public KeyInFlightException(String message) {
        super(message, null);
    }
}
