package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Lease;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.Retention;
import io.echomq.queue.Settlement;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Scenario: retention under load. Jobs are submitted in batches while worker threads drain the
 * queue as fast as the engine goes, each turn one {@code complete-claim} call that acknowledges
 * the jobs of its last turn and leases the next ones (the worker's round trip, without a handler
 * or PostgreSQL, so the completion rate is the queue's own ceiling here). A retention pass runs
 * every second, far more often than the engine's default (30 s). Sampled every 20 ms, the
 * completed set never holds more than its bound, and at the end it holds exactly the bound: the
 * settle path deletes finished jobs as fast as they finish, so Valkey's memory for the queue is
 * flat at bound × bytes per retained job whatever the rate. On the code before the settle path
 * trimmed, the completed set grew with every completion (the pass deleted 1,000 jobs per call).
 *
 * <p>The summary line: {@code reliability scenario=retention-under-load rate=N completed_kept=N bound=N
 * valkey_bytes_per_retained_job=N} and, after it, the jobs completed, the largest count sampled
 * and the queue's bytes in Valkey at the end.
 */
@WithRealServices
class RetentionUnderLoadReliabilityTest {

    private static final int BOUND = ReliabilitySize.pick(2_000, 10_000);
    private static final int JOBS = ReliabilitySize.pick(40_000, 400_000);
    private static final int WORKERS = 4;
    private static final int CLAIM_BATCH = 100;
    private static final int SUBMIT_BATCH = 500;
    private static final Duration LEASE = Duration.ofMinutes(5);

    @Test
    void theCompletedSetStaysWithinItsBoundAtTheEnginesFullCompletionRate(ValkeyService valkey) throws Exception {
        String queue = "retention-load-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Retention retention = new Retention(BOUND, Duration.ofHours(24), 100_000, Duration.ofDays(30), 1_000);
        ExecutorService threads = Executors.newFixedThreadPool(WORKERS + 3);
        try (RedisClient redis = valkey.newClient()) {
            QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT.withRetention(retention));
            AtomicLong completed = new AtomicLong();
            AtomicLong maxKept = new AtomicLong();
            long start = System.nanoTime();

            List<Future<?>> load = new ArrayList<>();
            load.add(threads.submit(() -> submit(client, queue)));
            for (int w = 0; w < WORKERS; w++) {
                String worker = "retention-worker-" + w;
                load.add(threads.submit(() -> drain(client, queue, worker, completed)));
            }
            Future<?> maintenance = threads.submit(() -> trimEverySecond(client, queue, retention, completed));
            Future<?> sampler = threads.submit(() -> sample(redis, new QueueKeys(queue), maxKept, completed));
            for (Future<?> running : load) {
                running.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            maintenance.get();
            sampler.get();

            QueueStats stats = client.reads().stats(queue);
            long kept = stats.completed();
            long queueBytes = queueBytes(redis, new QueueKeys(queue));
            long bytesPerJob = kept == 0 ? 0 : queueBytes / kept;
            String line = String.format("reliability scenario=retention-under-load rate=%d completed_kept=%d bound=%d "
                            + "valkey_bytes_per_retained_job=%d completed=%d max_kept=%d queue_bytes=%d",
                    Math.round(completed.get() / seconds), kept, BOUND, bytesPerJob, completed.get(), maxKept.get(), queueBytes);
            System.out.println(line);

            assertThat(completed.get()).as(line).isEqualTo(JOBS);
            assertThat(stats.pending() + stats.active() + stats.delayed() + stats.dead()).as(line).isZero();
            assertThat(maxKept.get()).as("the completed set never outgrew its bound: %s", line).isLessThanOrEqualTo(BOUND);
            assertThat(kept).as(line).isEqualTo(BOUND);
            assertThat(bytesPerJob).as("what a retained job costs, everything the queue holds included: %s", line)
                    .isBetween(100L, 2_000L);
        } finally {
            threads.shutdownNow();
        }
    }

    private static void submit(QueueClient client, String queue) {
        for (int sent = 0; sent < JOBS; sent += SUBMIT_BATCH) {
            int base = sent;
            client.submissions().enqueueBatch(queue, IntStream.range(0, Math.min(SUBMIT_BATCH, JOBS - sent))
                    .mapToObj(i -> NewJob.of("{\"account\":" + (base + i) % 97 + ",\"amount\":" + (base + i) + "}"))
                    .toList());
        }
    }

    /** A worker's turns: acknowledge the last turn's jobs, lease the next ones, until every job completed. */
    private static Void drain(QueueClient client, String queue, String worker, AtomicLong completed) throws InterruptedException {
        List<Lease> finished = List.of();
        while (completed.get() < JOBS) {
            CompletedAndClaimed turn = client.leases().completeAndClaim(queue, finished, LEASE, CLAIM_BATCH, worker);
            long settled = turn.settlements().stream().filter(Settlement.Completed.class::isInstance).count();
            assertThat(settled).as("every acknowledgement of a held lease settles").isEqualTo(finished.size());
            completed.addAndGet(settled);
            finished = turn.claimed().stream().map(ClaimedJob::lease).toList();
            if (finished.isEmpty()) {
                Thread.sleep(1);   // as the worker's idle poll, shorter: nothing pending until the submitter catches up
            }
        }
        return null;
    }

    private static Void trimEverySecond(QueueClient client, String queue, Retention retention, AtomicLong completed)
            throws InterruptedException {
        while (completed.get() < JOBS) {
            client.admin().trim(queue, retention);
            Thread.sleep(1_000);
        }
        return null;
    }

    private static Void sample(RedisClient redis, QueueKeys keys, AtomicLong maxKept, AtomicLong completed) throws InterruptedException {
        while (completed.get() < JOBS) {
            maxKept.accumulateAndGet(redis.zcard(keys.completed()), Math::max);
            Thread.sleep(20);
        }
        maxKept.accumulateAndGet(redis.zcard(keys.completed()), Math::max);
        return null;
    }

    /** Every byte Valkey holds for the queue: the sum of MEMORY USAGE over its keys. */
    private static long queueBytes(RedisClient redis, QueueKeys keys) {
        List<String> names = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams match = new ScanParams().match(keys.prefix() + "*").count(1_000);
        do {
            ScanResult<String> page = redis.scan(cursor, match);
            names.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        List<Response<Long>> sizes = new ArrayList<>();
        try (AbstractPipeline pipeline = redis.pipelined()) {
            names.forEach(name -> sizes.add(pipeline.memoryUsage(name)));
            pipeline.sync();
        }
        return sizes.stream().mapToLong(size -> size.get() == null ? 0 : size.get()).sum();
    }
}
