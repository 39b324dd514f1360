package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Lease;
import io.echomq.queue.Leases;
import io.echomq.queue.QueueUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The turn protocol: talking to Valkey is a role, not a thread. A runner that needs work takes
 * the turn, if nobody holds it, for one {@code complete-claim} call that acknowledges every job
 * the {@link Completer} queued since the last turn and leases work for every free runner (and
 * the jobs leased ahead). With one runner that is one round trip per job and no hand-off
 * between threads; with many, one round trip settles and fetches for all of them.
 *
 * <p>Invariants: one turn at a time (a lock, held only by the runner taking the turn); a turn
 * never leases more portions than free runners plus the lease-ahead target; every portion it
 * leases is tracked by the lease keeper before it is handed to anyone; acknowledgements a
 * failed turn did not send go back to the completer for the next one.
 */
final class Turn {

    private static final Logger LOG = Logger.getLogger(Turn.class.getName());

    /** The one Valkey call a turn makes: {@link Leases#completeAndClaim}, bound to a queue and worker. */
    @FunctionalInterface
    interface ValkeyCall {
        /** @param idleTurn the worker's idle poll when it is idle, else zero ({@link IdlePacer#idleTurn()}) */
        CompletedAndClaimed completeAndClaim(List<Lease> acknowledgements, int wanted, Duration idleTurn);
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final String queueName;
    private final String workerId;
    private final ValkeyCall valkey;
    /** Jobs per portion: the batch size for a batch handler, else 1. */
    private final int portionSize;
    private final Completer completer;
    private final LeaseAhead ahead;
    private final LeaseKeeper keeper;
    private final WorkerListener listener;
    /** Guarded by {@link #lock}. */
    private final IdlePacer pacer;

    /** @param linger how long a claim waits after one that came back short ({@link IdlePacer}); zero for none */
    Turn(String queueName, String workerId, ValkeyCall valkey, int portionSize, Duration idlePoll, Duration linger, Completer completer,
            LeaseAhead ahead, LeaseKeeper keeper, WorkerListener listener) {
        this.queueName = queueName;
        this.workerId = workerId;
        this.valkey = valkey;
        this.portionSize = portionSize;
        this.completer = completer;
        this.ahead = ahead;
        this.keeper = keeper;
        this.listener = listener;
        this.pacer = new IdlePacer(idlePoll, linger, System.nanoTime());
    }

    boolean tryLock() {
        return lock.tryLock();
    }

    boolean tryLock(long nanos) throws InterruptedException {
        return lock.tryLock(nanos, TimeUnit.NANOSECONDS);
    }

    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /** Whether a turn should go to Valkey now. Holding the lock. */
    boolean due() {
        return pacer.turnDue(System.nanoTime(), completer.hasAcknowledgements());
    }

    /** How long until a turn is due, if no acknowledgement comes first. Holding the lock. */
    long nanosUntilDue() {
        return due() ? 0 : pacer.nanosUntilDue(System.nanoTime());
    }

    /**
     * One round trip, holding the lock: acknowledges what the completer queued, leases work for
     * {@code freeRunners} runners and tops up the jobs leased ahead.
     *
     * @return the free runners' portions: at most {@code freeRunners}, fewer if the queue ran
     *         short or Valkey failed
     */
    List<RunningWork> roundTrip(int freeRunners, boolean stopping) {
        List<ClaimedJob> acknowledgements = completer.takeAcknowledgements(Leases.MAX_CLAIM_JOBS);
        int wanted = Math.min((freeRunners + ahead.toLease(stopping)) * portionSize, Leases.MAX_CLAIM_JOBS);
        long sentAt = System.nanoTime();
        CompletedAndClaimed result;
        try {
            result = valkey.completeAndClaim(acknowledgements.stream().map(ClaimedJob::lease).toList(), wanted,
                    pacer.idleTurn());
        } catch (RuntimeException e) {
            completer.notSent(acknowledgements);
            pacer.valkeyFailed(System.nanoTime());
            if (e instanceof QueueUnavailableException) {
                LOG.log(Level.WARNING, "worker {0} on queue ''{1}'': {2}", new Object[] {workerId, queueName, e.getMessage()});
            } else {
                LOG.log(Level.SEVERE, "worker " + workerId + ": claim on queue '" + queueName + "' failed", e);
            }
            return List.of();
        }
        if (wanted > 0) {
            listener.claimCall(queueName, Duration.ofNanos(System.nanoTime() - sentAt), result.claimed().size());
        }
        completer.acknowledged(acknowledgements, result.settlements());
        List<RunningWork> works = portions(result.claimed(), freeRunners).stream()
                .map(jobs -> keeper.track(new Portion(jobs, sentAt)))
                .toList();
        pacer.claimed(System.nanoTime(), wanted, result.claimed().size(), result.untilIdleTurn().toNanos());
        // Free runners first; what is left over was leased ahead.
        int forRunners = Math.min(freeRunners, works.size());
        ahead.addAll(works.subList(forRunners, works.size()));
        return works.subList(0, forRunners);
    }

    /** The claimed jobs in even portions: single jobs, or at most {@code freeRunners} batches. */
    private List<List<ClaimedJob>> portions(List<ClaimedJob> claimed, int freeRunners) {
        if (claimed.isEmpty()) {
            return List.of();
        }
        int count = portionSize > 1 ? Math.max(1, Math.min(freeRunners, (claimed.size() + portionSize - 1) / portionSize))
                : claimed.size();
        List<List<ClaimedJob>> portions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            portions.add(claimed.subList(claimed.size() * i / count, claimed.size() * (i + 1) / count));
        }
        return portions;
    }
}
