package io.echomq.queue;

import java.time.Duration;
import java.util.List;

/**
 * What one {@code completeAndClaim} call did: the settlement of each acknowledgement, in the
 * order given, the jobs newly leased to the caller, and, for an idle caller whose claim found
 * nothing, how long until the idle turn it booked ({@link Duration#ZERO} when it booked none).
 */
public record CompletedAndClaimed(List<Settlement> settlements, List<ClaimedJob> claimed, Duration untilIdleTurn) {

    /** A call that booked no idle turn. */
    public CompletedAndClaimed(List<Settlement> settlements, List<ClaimedJob> claimed) {
        this(settlements, claimed, Duration.ZERO);
    }
}
