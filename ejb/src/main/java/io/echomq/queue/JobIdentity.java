package io.echomq.queue;

/**
 * Which job a thing is about. A job id alone is not enough: ids are minted by a counter in
 * Valkey, and a failover that loses the counter hands an id out again, to a job with another
 * creation time. The idempotency key the job was submitted with (null for none) names the
 * submission: a second job with the key, made after Valkey forgot the first, is the same
 * submission again. The effect store decides by these four which effect row stands for a job
 * ({@code EffectStore.find}).
 *
 * @param createdMs the job's creation time, ms on the Valkey server's clock, set once at enqueue
 */
public record JobIdentity(String queue, String jobId, long createdMs, String idempotencyKey) {
}
