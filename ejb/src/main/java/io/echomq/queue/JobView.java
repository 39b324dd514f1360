package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/**
 * Everything the queue knows about one job, read in one step. Times are on the Valkey
 * server's clock.
 *
 * @param priority    0 (lowest) to 9 (highest): the order of its claim within its lane
 * @param attempts    deliveries so far (the current or last fencing token)
 * @param maxAttempts the attempt at which a failure dead-letters the job
 * @param worker      the worker that made the latest claim
 * @param note        why the queue itself settled the job, e.g. completed by the reconciler
 * @param progress    the latest progress its handler reported, with the attempt that reported it
 *                    (kept when that attempt ended, until a later attempt reports)
 * @param cancelRequestedAt when an operator asked to cancel the job while it ran (until it ends)
 * @param dedupeKey   the dedupe key it was submitted with (see {@link Dedupe})
 * @param flowParent  the flow parent it is a child of, if any (see {@link Flows})
 * @param flowChildren how many children it waits or waited for as a flow parent; 0 for any other job
 */
public record JobView(
        String queue,
        String id,
        JobState state,
        String payload,
        String lane,
        int priority,
        long attempts,
        long maxAttempts,
        Instant createdAt,
        Optional<Instant> dueAt,
        Optional<Instant> claimedAt,
        Optional<Instant> leaseUntil,
        Optional<String> worker,
        Optional<String> lastError,
        Optional<Instant> finishedAt,
        Optional<String> idempotencyKey,
        Optional<String> note,
        Optional<Progress.Reported> progress,
        Optional<Instant> cancelRequestedAt,
        Optional<String> dedupeKey,
        Optional<FlowParent> flowParent,
        int flowChildren) {

    /** A flow child's parent: which job, the child's index among its children, and the child's policy towards it. */
    public record FlowParent(String queue, String id, long createdMs, int index, ChildFailure onFailure) {

        /** From the child's {@code parent} field ({@code <queue> <id> <created ms> <index>}) and its {@code parent_policy}. */
        static Optional<FlowParent> parse(String parent, String policy) {
            if (parent == null) {
                return Optional.empty();
            }
            String[] ref = parent.split(" ");
            return Optional.of(new FlowParent(ref[0], ref[1], Long.parseLong(ref[2]), Integer.parseInt(ref[3]),
                    ChildFailure.fromWireName(policy)));
        }
    }

    /** The job this view shows. */
    public JobIdentity identity() {
        return new JobIdentity(queue, id, createdAt.toEpochMilli(), idempotencyKey.orElse(null));
    }
}
