package io.echomq.queue;

import static io.echomq.queue.internal.ValkeyCommands.read;

import io.echomq.queue.internal.QueueKeys;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The {@link EventIterator} of one job-event stream: the queue's, or one shard's. Each blocking
 * read ({@code XREAD BLOCK}) runs in the caller's thread and holds one pooled connection for at
 * most {@link #BLOCK_SLICE}, then gives it back, so a follower costs one connection while it
 * waits and a closed one none. Obtained from {@link QueueReads#follow}.
 */
final class StreamFollower implements EventIterator {

    private static final int BATCH = 100;

    private final UnifiedJedis redis;
    private final String streamKey;
    private final EventFilter filter;
    private final Deque<QueueEvent> ready = new ArrayDeque<>();
    /** Written by the reading thread only: the last entry read from the stream, and the last one handed out. */
    private String position;
    private String lastDelivered;
    private volatile boolean closed;

    StreamFollower(UnifiedJedis redis, QueueKeys keys, String after, EventFilter filter) {
        this.redis = redis;
        this.streamKey = keys.events();
        this.position = after;
        this.lastDelivered = after;
        this.filter = filter;
    }

    @Override
    public Optional<QueueEvent> poll(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (ready.isEmpty() && !closed) {
            long left = Math.max(0, deadline - System.nanoTime());
            readOnce(Math.min(left, BLOCK_SLICE.toNanos()) / 1_000_000);
            if (System.nanoTime() >= deadline) {
                break;
            }
        }
        return Optional.ofNullable(deliver());
    }

    private QueueEvent deliver() {
        QueueEvent event = ready.poll();
        if (event != null) {
            lastDelivered = event.id();
        }
        return event;
    }

    private void readOnce(long blockMs) {
        XReadParams params = XReadParams.xReadParams().count(BATCH).block((int) Math.max(1, blockMs));
        Map<String, List<StreamEntry>> got = read(() -> redis.xreadAsMap(params,
                Map.of(streamKey, new StreamEntryID(position))));
        if (got == null) {
            return;
        }
        for (StreamEntry entry : got.getOrDefault(streamKey, List.of())) {
            position = entry.getID().toString();
            QueueEvent event = QueueEvent.of(position, entry.getFields());
            if (filter.matches(event)) {
                ready.add(event);
            }
        }
    }

    @Override
    public boolean hasNext() {
        while (ready.isEmpty() && !closed) {
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            readOnce(BLOCK_SLICE.toMillis());
        }
        return !ready.isEmpty();
    }

    @Override
    public QueueEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the event stream was closed or the thread interrupted");
        }
        return deliver();
    }

    /** The id of the last entry handed out, or of the last one read when every entry read was handed out or filtered out, or the starting id. */
    @Override
    public String lastRead() {
        return ready.isEmpty() ? position : lastDelivered;
    }

    /** Ends the wait: hasNext answers false after the current blocking read (at most {@link #BLOCK_SLICE}). */
    @Override
    public void close() {
        closed = true;
    }
}
