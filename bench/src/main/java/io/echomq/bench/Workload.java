package io.echomq.bench;

import io.echomq.demo.Charge;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Submissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The jobs every contestant runs: demo charges spread over 1,000 accounts, as the BullMQ peer
 * makes them (bench/bullmq/run.mjs), so both sides write the same rows.
 */
final class Workload {

    static final int ACCOUNTS = 1_000;
    private static final Pattern SENT = Pattern.compile("\"sentNanos\":(\\d+)");
    private static final long STAMP_ORIGIN = System.nanoTime();
    private static final long STAMP_BASE = 1_000_000_000_000_000L;

    private Workload() {
    }

    /** The i-th job's charge: the same account and amount on every side. */
    static Charge chargeOf(int i) {
        return new Charge("acct-" + (i % ACCOUNTS), 1 + i % 97);
    }

    static String charge(int i) {
        return json(chargeOf(i), "");
    }

    /**
     * A charge that carries the moment it is sent, for latency: this JVM's nanoTime, as an
     * offset from {@link #STAMP_ORIGIN} plus {@link #STAMP_BASE}, so the stamp has 16 digits
     * for 104 days. A raw nanoTime counts from the machine's boot and gains a digit as it runs:
     * in the middle of a soak most payloads went past Valkey's 64-byte compact-hash limit, their
     * job hashes took about 700 bytes more each, and Valkey's memory stepped up by 5.7 MB.
     */
    static String timedCharge(int i) {
        return json(chargeOf(i), ",\"sentNanos\":" + (System.nanoTime() - STAMP_ORIGIN + STAMP_BASE));
    }

    private static String json(Charge charge, String extra) {
        return "{\"account\":\"" + charge.account() + "\",\"amountCents\":" + charge.amountCents() + extra + "}";
    }

    /** The nanoTime at which {@link #timedCharge} made {@code payload}. */
    static long sentNanos(String payload) {
        Matcher m = SENT.matcher(payload);
        if (!m.find()) {
            throw new IllegalArgumentException("payload without sentNanos: " + payload);
        }
        return Long.parseLong(m.group(1)) - STAMP_BASE + STAMP_ORIGIN;
    }

    /** Submits {@code jobs} charges in batches of the most one call takes. */
    static void preload(QueueClient queue, String queueName, int jobs) {
        preload(queue, queueName, jobs, 1, false);
    }

    /** {@code flows} flows on {@code queueName}, each a parent charge and {@code children} child charges, every charge distinct. */
    static void preloadFlows(QueueClient queue, String queueName, int flows, int children) {
        int charge = 0;
        for (int f = 0; f < flows; f++) {
            NewFlow[] kids = new NewFlow[children];
            for (int c = 0; c < children; c++) {
                kids[c] = NewFlow.of(queueName, NewJob.of(charge(charge++)));
            }
            queue.flows().submit(NewFlow.of(queueName, NewJob.of(charge(charge++)), kids));
        }
    }

    /** Jobs spread over {@code lanes} lanes in turn, at priorities 0-9 at random when {@code prioritised} (seeded: runs alike). */
    static void preload(QueueClient queue, String queueName, int jobs, int lanes, boolean prioritised) {
        java.util.Random random = new java.util.Random(42);
        for (int from = 0; from < jobs; from += Submissions.MAX_BATCH_JOBS) {
            List<NewJob> batch = new ArrayList<>(Submissions.MAX_BATCH_JOBS);
            for (int i = from; i < Math.min(jobs, from + Submissions.MAX_BATCH_JOBS); i++) {
                NewJob job = NewJob.of(charge(i));
                if (lanes > 1) {
                    job = job.inLane("lane-" + i % lanes);
                }
                batch.add(prioritised ? job.withPriority(random.nextInt(10)) : job);
            }
            queue.submissions().enqueueBatch(queueName, batch);
        }
    }
}
