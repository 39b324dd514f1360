package io.echomq.queue;

import java.util.List;

/**
 * What one {@code completeAndClaim} call did: the settlement of each acknowledgement, in the
 * order given, and the jobs newly leased to the caller.
 */
public record CompletedAndClaimed(List<Settlement> settlements, List<ClaimedJob> claimed) {
}
