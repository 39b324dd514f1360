package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;

/**
 * Which door of a shard's client makes a sharded queue's job once its shard is chosen (and its
 * keys' homes settled, docs/SHARDING.md 3.1): a submitter's, which refuses the keys the engine
 * reserves for its own jobs, or the outbox's, whose relayed rows carry them ({@code followup:},
 * {@code outbox:}). The routing is the same for both ({@link ShardedSubmissions}).
 */
enum ShardDoor {

    SUBMITTER {
        @Override
        Enqueued enqueue(QueueClient shard, String queue, NewJob job) {
            return shard.submissions().enqueue(queue, job);
        }

        @Override
        Enqueued enqueueClaimed(QueueClient shard, String queue, NewJob job, String idempotencyKeyClaim, String dedupeKeyClaim) {
            return shard.submissions().enqueueClaimed(queue, job, idempotencyKeyClaim, dedupeKeyClaim);
        }
    },

    OUTBOX {
        @Override
        Enqueued enqueue(QueueClient shard, String queue, NewJob job) {
            return shard.submissions().outboxDoor().enqueue(queue, job, "");
        }

        @Override
        Enqueued enqueueClaimed(QueueClient shard, String queue, NewJob job, String idempotencyKeyClaim, String dedupeKeyClaim) {
            return shard.submissions().outboxDoor().enqueueClaimed(queue, job, idempotencyKeyClaim, dedupeKeyClaim);
        }
    };

    /** A job with no key that needs a home: made on {@code shard} as it is. */
    abstract Enqueued enqueue(QueueClient shard, String queue, NewJob job);

    /** A keyed job, made on {@code shard} under the claims its keys' homes were settled by. */
    abstract Enqueued enqueueClaimed(QueueClient shard, String queue, NewJob job, String idempotencyKeyClaim, String dedupeKeyClaim);
}
