package io.echomq.queue.outbox;

import java.util.Arrays;
import java.util.Optional;

/** What an admin asks the relays of an outbox to do with one of its dead rows. */
public enum OutboxCommand {

    /** The row becomes relayable again, with a fresh budget of tries. */
    RETRY("retry"),

    /** The row is deleted: its job is never submitted. */
    DROP("drop");

    private final String wireName;

    OutboxCommand(String wireName) {
        this.wireName = wireName;
    }

    /** Its name in Valkey and in the HTTP API. */
    public String wireName() {
        return wireName;
    }

    /** The command of this name, if any. */
    public static Optional<OutboxCommand> ofWireName(String name) {
        return Arrays.stream(values()).filter(c -> c.wireName.equals(name)).findFirst();
    }
}
