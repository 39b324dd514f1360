package io.echomq.queue.outbox;

import io.echomq.queue.WireName;
import java.util.Optional;

/** What an admin asks the relays of an outbox to do with one of its dead rows. */
public enum OutboxCommand implements WireName {

    /** The row becomes relayable again, with a fresh budget of tries. */
    RETRY,

    /** The row is deleted: its job is never submitted. */
    DROP;

    /** The command of this name in Valkey and the HTTP API, if any. */
    public static Optional<OutboxCommand> ofWireName(String name) {
        return WireName.find(OutboxCommand.class, name);
    }
}
