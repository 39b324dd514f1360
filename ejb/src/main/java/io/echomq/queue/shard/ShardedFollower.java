package io.echomq.queue.shard;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The {@link EventIterator} of a sharded queue (docs/SHARDING.md, section 8). One {@code XREAD}
 * cannot span the slots of a cluster, so each shard's stream has a reader thread of its own, a
 * blocking follow of that shard ({@link io.echomq.queue.QueueReads#follow}), and the readers hand
 * what they read to the caller's thread through one bounded queue. An entry is handed out as soon
 * as its shard's blocking read returns it, in its shard's order; shards interleave as their entries
 * arrive. The filter is applied in the caller's thread, so the resume point passes the entries it
 * filtered out exactly as {@link EventIterator#lastRead()} says.
 *
 * <p>A shard whose read fails ends the follow: the entries that arrived before the failure are
 * handed out, then every call throws it ({@link QueueUnavailableException} naming the shard when
 * the shard was unreachable) and the other readers stop; {@link #lastRead()} still tells where to
 * follow again.
 */
final class ShardedFollower implements EventIterator {

    /** Entries read ahead of the caller, per shard: a slow caller slows the readers down rather than growing their memory. */
    private static final int READ_AHEAD_PER_SHARD = 100;

    private final String queue;
    private final EventFilter filter;
    /** One follower of each shard's whole stream, each used by its reader thread only (and closed by {@link #close()}). */
    private final List<EventIterator> streams;
    private final BlockingQueue<Arrival> arrivals;
    /** Read and written by the following thread only: each shard's last entry handed out or filtered out. */
    private final String[] positions;
    /** Read and written by the following thread only: the next matching entry, not handed out yet. */
    private Entry ready;
    /** Read and written by the following thread only: the failure that ended the follow. */
    private RuntimeException failure;
    private volatile boolean closed;

    private ShardedFollower(String queue, List<String> from, EventFilter filter, List<EventIterator> streams) {
        this.queue = queue;
        this.filter = filter;
        this.streams = streams;
        this.positions = from.toArray(String[]::new);
        this.arrivals = new LinkedBlockingQueue<>(READ_AHEAD_PER_SHARD * streams.size());
    }

    /**
     * Follows {@code queue}'s events on every shard, each after its own entry id of {@code from}
     * (in shard order), and starts the readers.
     */
    static EventIterator start(String queue, List<QueueClient> shards, List<String> from, EventFilter filter) {
        List<EventIterator> streams = new ArrayList<>(shards.size());
        for (int shard = 0; shard < shards.size(); shard++) {
            streams.add(shards.get(shard).reads().follow(queue, Optional.of(from.get(shard)), EventFilter.ALL));
        }
        ShardedFollower follower = new ShardedFollower(queue, from, filter, List.copyOf(streams));
        for (int shard = 0; shard < shards.size(); shard++) {
            int reading = shard;
            Thread reader = new Thread(() -> follower.read(reading), "echomq-events[" + queue + "#" + shard + "]");
            reader.setDaemon(true);
            reader.start();
        }
        return follower;
    }

    /** A reader thread's whole life: its shard's entries, in order, until closed or its read fails. */
    private void read(int shard) {
        EventIterator stream = streams.get(shard);
        try {
            while (stream.hasNext()) {
                handOver(new Entry(shard, stream.next()));
            }
        } catch (RuntimeException e) {
            handOver(new Failed(shard, e));
        }
    }

    private void handOver(Arrival arrival) {
        try {
            boolean handed = false;
            while (!handed && !closed) {
                handed = arrivals.offer(arrival, BLOCK_SLICE.toMillis(), MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean hasNext() {
        try {
            while (ready == null && stillFollowing()) {
                take(arrivals.take());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ready != null;
    }

    @Override
    public Optional<QueueEvent> poll(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (ready == null && stillFollowing()) {
                Arrival arrival = arrivals.poll(Math.max(0, deadline - System.nanoTime()), NANOSECONDS);
                if (arrival == null) {
                    break;
                }
                take(arrival);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.ofNullable(deliver());
    }

    @Override
    public QueueEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the event stream was closed or the thread interrupted");
        }
        return deliver();
    }

    /** False once closed; throws the failure that ended the follow, on every call after it. */
    private boolean stillFollowing() {
        if (failure != null) {
            throw failure;
        }
        return !closed;
    }

    private void take(Arrival arrival) {
        if (arrival instanceof Entry entry) {
            if (filter.matches(entry.event())) {
                ready = entry;
            } else {
                positions[entry.shard()] = entry.event().id();
            }
        } else if (arrival instanceof Failed failed) {
            failure = named(failed);
            close();
            throw failure;
        }
    }

    private RuntimeException named(Failed failed) {
        if (failed.cause() instanceof QueueUnavailableException unavailable) {
            return new QueueUnavailableException("shard " + failed.shard() + " of queue '" + queue + "' cannot be read ("
                    + unavailable.getMessage() + "); follow again from lastRead()", unavailable);
        }
        return failed.cause();
    }

    private QueueEvent deliver() {
        Entry entry = ready;
        if (entry == null) {
            return null;
        }
        ready = null;
        positions[entry.shard()] = entry.event().id();
        return entry.event();
    }

    /** Every shard's position, joined as {@link ShardedReads#events} joins them. */
    @Override
    public String lastRead() {
        return ShardedReads.resumePoint(Arrays.asList(positions));
    }

    /**
     * Ends the wait at once (a caller blocked in {@link #hasNext()} or {@link #poll} is woken); each
     * reader thread ends when its current blocking read does, within {@link #BLOCK_SLICE} (on a
     * master that just went down, when the cluster client's retries give up), and gives its
     * connection back.
     */
    @Override
    public void close() {
        closed = true;
        streams.forEach(EventIterator::close);
        arrivals.clear();
        arrivals.offer(Wake.WAKE);
    }

    /** What a reader hands to the following thread. */
    private sealed interface Arrival permits Entry, Failed, Wake {
    }

    private record Entry(int shard, QueueEvent event) implements Arrival {
    }

    private record Failed(int shard, RuntimeException cause) implements Arrival {
    }

    /** Only ends a wait. */
    private enum Wake implements Arrival {
        WAKE
    }
}
