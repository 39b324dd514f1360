package io.echomq.queue;

import java.util.List;

/**
 * What one reaper pass did with expired leases: jobs returned to pending, dead-lettered (no
 * attempts left) or cancelled (their cancel had been requested).
 */
public record ReapResult(String queue, int toPending, int toDead, int toCancelled, List<String> jobIds) {

    public int total() {
        return toPending + toDead + toCancelled;
    }
}
