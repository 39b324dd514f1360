package io.echomq.maintenance;

import io.echomq.queue.MaintenanceLease;
import io.echomq.queue.QueueAdmin;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which queues this engine keeps house for. Each run takes or renews a queue's maintenance lease
 * in Valkey ({@link QueueAdmin#holdMaintenance}); the other duties run over a queue only while
 * this engine holds its lease, so adding engines adds workers, not maintenance. A holder that
 * dies stops renewing and the next engine to ask takes over once the lease runs out; one that
 * stops hands its leases back, so the next takes over at its next run.
 *
 * <p>Invariant: this engine believes it holds a lease no longer than Valkey does. The belief
 * ends at the moment the request was <em>sent</em> plus the remaining length Valkey answered,
 * measured on this JVM's monotonic clock: Valkey started the lease's time later than that.
 * When the belief and Valkey's lease disagree anyway (a pause longer than the lease, clocks that
 * run at different rates), two engines run a round of the duties at once, which is safe: every
 * duty is a script judged on the server clock or a delete that rechecks Valkey.
 */
final class QueueStewardship implements MaintenanceDuty {

    private static final Logger LOG = Logger.getLogger(QueueStewardship.class.getName());

    /**
     * Renewals a holding outlasts: with one renewal per interval, a holder that misses this many
     * in a row (Valkey unreachable, a long pause) loses the queue to another engine.
     */
    static final int RENEWALS_PER_LEASE = 5;
    /** The shortest lease: short intervals (tests) would otherwise hand a queue over at every GC pause. */
    static final Duration MIN_LEASE = Duration.ofSeconds(1);

    private final QueueAdmin admin;
    private final String holder;
    private final Duration interval;
    private final Duration length;
    /** Per queue held here, until when (System.nanoTime()) this engine may believe it holds it. */
    private final Map<String, Long> heldUntil = new ConcurrentHashMap<>();

    QueueStewardship(QueueAdmin admin, String holder, Duration interval) {
        this.admin = admin;
        this.holder = holder;
        this.interval = interval;
        Duration renewals = interval.multipliedBy(RENEWALS_PER_LEASE);
        this.length = renewals.compareTo(MIN_LEASE) < 0 ? MIN_LEASE : renewals;
    }

    @Override
    public String name() {
        return "stewardship";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    /** How long a holding lasts without renewal: also the longest the duties pause when their holder dies. */
    Duration leaseLength() {
        return length;
    }

    @Override
    public Pass runOnce(String queue) {
        long asked = System.nanoTime();
        MaintenanceLease lease = admin.holdMaintenance(queue, holder, length);
        if (lease instanceof MaintenanceLease.Held held) {
            if (heldUntil.put(queue, asked + held.remaining().toNanos()) == null) {
                LOG.log(Level.INFO, "maintenance: {0} keeps house for queue ''{1}'' now (lease token {2})",
                        new Object[] {holder, queue, held.token()});
            }
        } else if (heldUntil.remove(queue) != null) {
            LOG.log(Level.INFO, "maintenance: {0} no longer keeps house for queue ''{1}'': {2} does",
                    new Object[] {holder, queue, ((MaintenanceLease.HeldBy) lease).holder()});
        }
        return Pass.NOTHING;
    }

    /** True while this engine holds {@code queue}'s lease by its own reckoning (see the invariant). */
    boolean keepsHouseFor(String queue) {
        Long until = heldUntil.get(queue);
        return until != null && until - System.nanoTime() > 0;
    }

    /** Hands back every lease held here, so other engines take over without waiting for them to run out. */
    void handBack(List<String> queues) {
        for (String queue : queues) {
            if (heldUntil.remove(queue) == null) {
                continue;
            }
            try {
                admin.releaseMaintenance(queue, holder);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "maintenance: could not hand back the lease of queue '" + queue
                        + "'; another engine takes it when it runs out: " + e);
            }
        }
    }
}
