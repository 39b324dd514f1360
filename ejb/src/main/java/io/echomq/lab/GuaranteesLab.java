package io.echomq.lab;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.maintenance.Maintenance;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.WireName;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The seed's delivery-guarantee readout, run for real: one demo charge goes through the real
 * queue scripts and the real database on a throwaway lab queue, a worker "crashes" at the chosen
 * point of its first delivery (it simply stops, as a killed process would), its lease expires,
 * the reaper returns the job, and a second delivery finishes it. The run reads back how many
 * jobs were lost, how often the job was delivered and how often its effect was applied.
 *
 * <p>Three ways to deliver. With the effect store, the job runs through the engine's own worker
 * (built by the {@link EngineAssembly}, its {@code complete-claim} turn, the effect store), with
 * the crash injected at the worker's crash point: the effect is recorded with the job, so the
 * second delivery skips it. The two counter-examples cannot be the engine's worker, since they
 * are what it refuses to do; they lease and acknowledge with the same {@code complete-claim}
 * script: at-most-once acknowledges before working (a crash mid-work loses the job);
 * at-least-once works outside the effect store, then acknowledges (a crash in between runs the
 * effect twice). Nothing here touches a real queue: each run has its own queue and deletes what
 * it made.
 */
public final class GuaranteesLab {

    public enum Mode implements WireName {
        AT_MOST_ONCE, AT_LEAST_ONCE, EFFECT_STORE;

        public static Mode fromWireName(String name) {
            return WireName.find(Mode.class, name).orElseThrow(() -> new InvalidRequestException("mode",
                    "must be at-most-once, at-least-once or effect-store"));
        }
    }

    public record Step(String step, String detail) {
    }

    public record Readout(String mode, String crashPoint, int lost, int deliveries, int effectsApplied, boolean completed,
            String verdict, List<Step> timeline) {
    }

    private static final Duration LEASE = Duration.ofMillis(300);
    private static final int MAX_DELIVERIES = 3;
    private static final long AMOUNT = 100;
    private static final String BY_HAND = "lab-hand-made-worker";

    private final QueueClient queue;
    private final EffectStore effects;
    private final EngineThreads threads;
    private final Jdbi jdbi;

    /** @param threads where the effect-store mode's worker runs: one runner, and a timer for its heartbeats */
    public GuaranteesLab(QueueClient queue, EffectStore effects, EngineThreads threads, Jdbi jdbi) {
        this.queue = queue;
        this.effects = effects;
        this.threads = threads;
        this.jdbi = jdbi;
    }

    /** One run; takes about a second (one lease expiry). One run at a time, to stay light. */
    public synchronized Readout run(Mode mode, CrashPoint crash) throws InterruptedException {
        String lab = "lab-" + UUID.randomUUID().toString().substring(0, 8);
        List<Step> timeline = new ArrayList<>();
        String id = queue.submissions().enqueue(lab, NewJob.of("{\"account\":\"lab\",\"amountCents\":" + AMOUNT + "}").withMaxAttempts(MAX_DELIVERIES)).id();
        timeline.add(new Step("enqueued", "job " + id + " on lab queue " + lab));
        try {
            int deliveries = mode == Mode.EFFECT_STORE ? throughTheWorker(lab, id, crash, timeline) : byHand(mode, lab, id, crash, timeline);
            int applied = ledgerRows(lab);
            boolean completed = state(lab, id) == JobState.COMPLETED;
            int lost = applied == 0 && (completed || state(lab, id) == JobState.DEAD) ? 1 : 0;
            return new Readout(mode.wireName(), crash.wireName(), lost, deliveries, applied, completed,
                    verdict(lost, deliveries, applied), List.copyOf(timeline));
        } finally {
            cleanUp(lab, id);
        }
    }

    /**
     * The engine's worker delivers the job, crashing at {@code crash} in its first attempt; the
     * lab's thread runs the reaper until the job is settled. Returns the deliveries.
     */
    private int throughTheWorker(String lab, String id, CrashPoint crash, List<Step> timeline) throws InterruptedException {
        LabTimeline events = new LabTimeline(timeline);
        EngineAssembly engine = new EngineAssembly(queue, effects, threads, "lab-worker", events, events);
        try {
            engine.startWorker(lab, new LedgerChargeHandler(), WorkerSettings.DEFAULT.withConcurrency(1).withLease(LEASE)
                    .withIdlePoll(Duration.ofMillis(20)), "lab-worker", SimulatedCrash.at(crash, 1).witnessedBy(events::crashedAt));
            Maintenance reaper = engine.maintenance(List.of(lab), Maintenance.Settings.DEFAULT);
            long deadline = System.nanoTime() + LEASE.multipliedBy(10).toNanos();
            while (System.nanoTime() < deadline && !settled(lab, id) && events.deliveries() <= MAX_DELIVERIES) {
                reaper.runOnce();
                Thread.sleep(20);
            }
        } finally {
            engine.stop(LEASE);
        }
        return events.deliveries();
    }

    /** A hand-made worker that settles when the mode says, through the worker's own script. Returns the deliveries. */
    private int byHand(Mode mode, String lab, String id, CrashPoint crash, List<Step> timeline) throws InterruptedException {
        int deliveries = 0;
        while (deliveries < MAX_DELIVERIES && state(lab, id) != JobState.COMPLETED) {
            ClaimedJob job = awaitClaim(lab, timeline);
            if (job == null) {
                break;
            }
            deliveries++;
            timeline.add(LabTimeline.claimed(deliveries, job));
            boolean crashes = job.attempt() == 1;
            if (deliver(mode, crashes ? crash : null, job, timeline)) {
                timeline.add(LabTimeline.crashed(crash));
            }
        }
        return deliveries;
    }

    private boolean settled(String lab, String id) {
        JobState state = state(lab, id);
        return state == JobState.COMPLETED || state == JobState.DEAD;
    }

    /** One delivery in the given mode; returns true when the worker crashed. */
    private boolean deliver(Mode mode, CrashPoint crash, ClaimedJob job, List<Step> timeline) {
        if (mode == Mode.AT_MOST_ONCE) {
            // Pop, then work: the acknowledgement is part of taking the job.
            acknowledge(job);
            timeline.add(new Step("acknowledged", "at-most-once: the job leaves the queue before the work"));
        }
        if (crash == CrashPoint.LEASE) {
            return true;
        }
        switch (mode) {
            case AT_MOST_ONCE -> {
                if (crash == CrashPoint.EFFECT) {
                    timeline.add(new Step("effect rolled back", "the worker died inside the effect transaction"));
                    return true;
                }
                chargeOutsideTheEffectStore(job);
                timeline.add(new Step("effect committed", "one ledger row"));
            }
            case AT_LEAST_ONCE -> {
                chargeOutsideTheEffectStore(job);
                timeline.add(new Step("effect committed", "one ledger row, not recorded as this job's effect"));
                if (crash == CrashPoint.EFFECT || crash == CrashPoint.ACK) {
                    return true;
                }
                acknowledge(job);
                timeline.add(new Step("acknowledged", "complete with token " + job.attempt()));
            }
            case EFFECT_STORE -> throw new IllegalArgumentException("the effect store's mode runs through the engine's worker");
        }
        return crash == CrashPoint.DONE;
    }

    /** The worker's own acknowledgement: a {@code complete-claim} turn that leases nothing. */
    private void acknowledge(ClaimedJob job) {
        queue.leases().completeAndClaim(job.lease().queue(), List.of(job.lease()), LEASE, 0, BY_HAND);
    }

    private void chargeOutsideTheEffectStore(ClaimedJob job) {
        jdbi.useTransaction(tx -> LedgerChargeHandler.charge(tx, job.lease().queue(), job.id(), job.attempt(), new Charge("lab", AMOUNT)));
    }

    /** Claims the job, reaping it first once its lease has expired; null when it never comes back. */
    private ClaimedJob awaitClaim(String lab, List<Step> timeline) throws InterruptedException {
        long deadline = System.nanoTime() + LEASE.multipliedBy(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (queue.admin().reap(lab, 10).toPending() > 0) {
                timeline.add(new Step("reaped", "lease expired: the reaper returned the job to pending"));
            }
            List<ClaimedJob> claimed = queue.leases().completeAndClaim(lab, List.of(), LEASE, 1, BY_HAND).claimed();
            if (!claimed.isEmpty()) {
                return claimed.get(0);
            }
            io.echomq.queue.QueueStats stats = queue.reads().stats(lab);
            if (stats.active() + stats.pending() + stats.delayed() == 0) {
                timeline.add(new Step("gone", "the job is no longer in the queue: nothing will deliver it again"));
                return null;
            }
            Thread.sleep(50);
        }
        return null;
    }

    private JobState state(String lab, String id) {
        return queue.reads().job(lab, id).map(j -> j.state()).orElse(null);
    }

    private int ledgerRows(String lab) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE queue = :q")
                .bind("q", lab).mapTo(Integer.class).one());
    }

    private void cleanUp(String lab, String id) {
        queue.admin().remove(lab, id);
        jdbi.useHandle(h -> {
            h.createUpdate("DELETE FROM echomq.demo_ledger WHERE queue = :q").bind("q", lab).execute();
            h.createUpdate("DELETE FROM echomq.effect WHERE queue = :q").bind("q", lab).execute();
        });
    }

    private static String verdict(int lost, int deliveries, int applied) {
        if (lost > 0) {
            return "Lost: the job left the queue before its work, and the crash took the work with it.";
        }
        if (applied > 1) {
            return "Never lost, but applied " + applied + " times: the redelivery ran the effect again (charged twice).";
        }
        if (deliveries > 1) {
            return "Never lost, delivered " + deliveries + " times, applied once: the effect store absorbed the redelivery.";
        }
        return "Clean: delivered once, applied once.";
    }
}
