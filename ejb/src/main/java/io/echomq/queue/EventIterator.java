package io.echomq.queue;

import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;

/**
 * Follows a queue's job events from a given point on: {@link #hasNext()} blocks until an entry
 * that matches the filter arrives, the iterator is closed, or the thread is interrupted (then it
 * answers false, with the interrupt kept). An entry is handed out as soon as a blocking read
 * ({@code XREAD BLOCK}) sees it: no poll interval is added. Entries the stream's cap trimmed
 * before they were read are not seen: {@link #lastRead()} tells where to resume.
 *
 * <p>On a queue of one shard it follows the queue's one stream in the caller's thread
 * ({@link QueueReads#follow}). On a sharded queue (docs/SHARDING.md, section 8) it follows every
 * shard's stream, one blocking reader per shard, entries in order within each shard (so within
 * each job), shards interleaved as their entries arrive; {@link #lastRead()} is then one entry id
 * per shard, joined, the same resume point the HTTP event stream gives as an event's id.
 *
 * <p>Not thread-safe, except {@link #close()}, which any thread may call. A read that fails
 * (Valkey, or a shard's master, unreachable) throws {@link QueueUnavailableException} from
 * {@link #hasNext()}, {@link #next()} or {@link #poll}; follow again from {@link #lastRead()}.
 */
public interface EventIterator extends Iterator<QueueEvent>, AutoCloseable {

    /** The longest one blocking read holds a connection: also how long a closed follower's reads may still run. */
    Duration BLOCK_SLICE = Duration.ofSeconds(1);

    /** Waits for the next matching entry for at most {@code wait}; empty when none came, or once closed. */
    Optional<QueueEvent> poll(Duration wait);

    /**
     * Where to resume: the last entry handed out, or the last one read when every entry read was
     * handed out or filtered out, or the starting point. A new follower started after it sees
     * exactly the matching entries this one has not handed out.
     */
    String lastRead();

    /** Ends the wait: {@link #hasNext()} answers false, at the latest once the current blocking reads end (within {@link #BLOCK_SLICE}). */
    @Override
    void close();
}
