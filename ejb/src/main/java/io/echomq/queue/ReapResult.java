package io.echomq.queue;

import java.util.List;

/** What one reaper pass did: expired leases returned to pending, or dead-lettered. */
public record ReapResult(String queue, int toPending, int toDead, List<String> jobIds) {

    public int total() {
        return toPending + toDead;
    }
}
