package io.echomq.lab;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectStore;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.worker.CrashPoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The seed's delivery-guarantee readout, run for real: one demo charge goes through the real
 * queue scripts and the real database on a throwaway lab queue, a worker "crashes" at the chosen
 * point of its first delivery (it simply stops, as a killed process would), its lease expires,
 * the reaper returns the job, and a second delivery finishes it. The run reads back how many
 * jobs were lost, how often the job was delivered and how often its effect was applied.
 *
 * <p>Three ways to deliver: at-most-once acknowledges before working (a crash mid-work loses the
 * job); at-least-once works, then acknowledges (a crash in between runs the effect twice); with
 * the effect store the effect is recorded with the job, so the second delivery skips it.
 * Nothing here touches a real queue: each run has its own queue and deletes what it made.
 */
public final class GuaranteesLab {

    public enum Mode {
        AT_MOST_ONCE, AT_LEAST_ONCE, EFFECT_STORE;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public static Mode fromWireName(String name) {
            for (Mode m : values()) {
                if (m.wireName().equals(name)) {
                    return m;
                }
            }
            throw new io.echomq.queue.InvalidRequestException("mode", "must be at-most-once, at-least-once or effect-store");
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

    private final QueueClient queue;
    private final EffectStore effects;
    private final Jdbi jdbi;

    public GuaranteesLab(QueueClient queue, EffectStore effects, Jdbi jdbi) {
        this.queue = queue;
        this.effects = effects;
        this.jdbi = jdbi;
    }

    /** One run; takes about a second (one lease expiry). One run at a time, to stay light. */
    public synchronized Readout run(Mode mode, CrashPoint crash) throws InterruptedException {
        String lab = "lab-" + UUID.randomUUID().toString().substring(0, 8);
        List<Step> timeline = new ArrayList<>();
        String id = queue.enqueue(lab, NewJob.of("{\"account\":\"lab\",\"amountCents\":" + AMOUNT + "}").withMaxAttempts(MAX_DELIVERIES)).id();
        timeline.add(new Step("enqueued", "job " + id + " on lab queue " + lab));
        int deliveries = 0;
        try {
            while (deliveries < MAX_DELIVERIES && state(lab, id) != JobState.COMPLETED) {
                ClaimedJob job = awaitClaim(lab, timeline);
                if (job == null) {
                    break;
                }
                deliveries++;
                timeline.add(new Step("claimed", "delivery " + deliveries + ": attempt " + job.attempt()
                        + ", lease until " + job.leaseUntil() + " (server clock)"));
                boolean crashes = job.attempt() == 1;
                if (deliver(mode, crashes ? crash : null, job, timeline)) {
                    timeline.add(new Step("crashed", "the worker died at " + crash.name().toLowerCase(Locale.ROOT)
                            + "; nothing settles the job until its lease expires"));
                }
            }
            int applied = ledgerRows(lab);
            boolean completed = state(lab, id) == JobState.COMPLETED;
            int lost = applied == 0 && (completed || state(lab, id) == JobState.DEAD) ? 1 : 0;
            return new Readout(mode.wireName(), crash.name().toLowerCase(Locale.ROOT), lost, deliveries, applied, completed,
                    verdict(lost, deliveries, applied), List.copyOf(timeline));
        } finally {
            cleanUp(lab, id);
        }
    }

    /** One delivery in the given mode; returns true when the worker crashed. */
    private boolean deliver(Mode mode, CrashPoint crash, ClaimedJob job, List<Step> timeline) {
        if (mode == Mode.AT_MOST_ONCE) {
            // Pop, then work: the acknowledgement is part of taking the job.
            queue.complete(job.lease());
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
                queue.complete(job.lease());
                timeline.add(new Step("acknowledged", "complete with token " + job.attempt()));
            }
            case EFFECT_STORE -> {
                EffectOutcome outcome = effects.apply(job.lease(), tx -> LedgerChargeHandler.charge(tx, job.lease().queue(),
                        job.id(), job.attempt(), new Charge("lab", AMOUNT)));
                timeline.add(outcome instanceof EffectOutcome.AlreadyApplied skipped
                        ? new Step("effect skipped", "already applied by attempt " + skipped.record().attempt())
                        : new Step("effect committed", "one ledger row and the job's effect record, in one transaction"));
                if (crash == CrashPoint.EFFECT || crash == CrashPoint.ACK) {
                    return true;
                }
                queue.complete(job.lease());
                timeline.add(new Step("acknowledged", "complete with token " + job.attempt()));
            }
        }
        return crash == CrashPoint.DONE;
    }

    private void chargeOutsideTheEffectStore(ClaimedJob job) {
        jdbi.useTransaction(tx -> LedgerChargeHandler.charge(tx, job.lease().queue(), job.id(), job.attempt(), new Charge("lab", AMOUNT)));
    }

    /** Claims the job, reaping it first once its lease has expired; null when it never comes back. */
    private ClaimedJob awaitClaim(String lab, List<Step> timeline) throws InterruptedException {
        long deadline = System.nanoTime() + LEASE.multipliedBy(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (queue.reap(lab, 10).toPending() > 0) {
                timeline.add(new Step("reaped", "lease expired: the reaper returned the job to pending"));
            }
            List<ClaimedJob> claimed = queue.claim(lab, LEASE, 1, "lab-worker");
            if (!claimed.isEmpty()) {
                return claimed.get(0);
            }
            io.echomq.queue.QueueStats stats = queue.stats(lab);
            if (stats.active() + stats.pending() + stats.delayed() == 0) {
                timeline.add(new Step("gone", "the job is no longer in the queue: nothing will deliver it again"));
                return null;
            }
            Thread.sleep(50);
        }
        return null;
    }

    private JobState state(String lab, String id) {
        return queue.job(lab, id).map(j -> j.state()).orElse(null);
    }

    private int ledgerRows(String lab) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE queue = :q")
                .bind("q", lab).mapTo(Integer.class).one());
    }

    private void cleanUp(String lab, String id) {
        queue.remove(lab, id);
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
