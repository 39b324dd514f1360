package io.echomq.web.metrics;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Jobs completed and failed per queue and minute, over the last hour, as this node saw them:
 * what the console charts. Kept in memory; a restarted node starts a fresh hour.
 */
public final class Throughput {

    private static final int MINUTES = 60;

    public record Point(Instant minute, long completed, long failed) {
    }

    private final Map<String, long[][]> byQueue = new ConcurrentHashMap<>();

    void completed(String queue) {
        add(queue, 0);
    }

    void failed(String queue) {
        add(queue, 1);
    }

    /** For each queue, one point per minute of the last hour, oldest first. */
    public Map<String, List<Point>> lastHour() {
        long now = minute(Instant.now());
        Map<String, List<Point>> out = new TreeMap<>();
        byQueue.forEach((queue, buckets) -> {
            List<Point> points = new ArrayList<>(MINUTES);
            synchronized (buckets) {
                for (long m = now - MINUTES + 1; m <= now; m++) {
                    long[] bucket = buckets[(int) Math.floorMod(m, MINUTES)];
                    boolean current = bucket[2] == m;
                    points.add(new Point(Instant.ofEpochSecond(m * 60), current ? bucket[0] : 0, current ? bucket[1] : 0));
                }
            }
            out.put(queue, points);
        });
        return out;
    }

    /** Bucket layout: [completed, failed, minute it counts]; a stale minute is reset on first use. */
    private void add(String queue, int index) {
        long m = minute(Instant.now());
        long[][] buckets = byQueue.computeIfAbsent(queue, q -> new long[MINUTES][3]);
        synchronized (buckets) {
            long[] bucket = buckets[(int) Math.floorMod(m, MINUTES)];
            if (bucket[2] != m) {
                bucket[0] = 0;
                bucket[1] = 0;
                bucket[2] = m;
            }
            bucket[index]++;
        }
    }

    private static long minute(Instant t) {
        return t.truncatedTo(ChronoUnit.MINUTES).getEpochSecond() / 60;
    }
}
