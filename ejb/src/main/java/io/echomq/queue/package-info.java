/**
 * Claiming and every other state change of a job in Valkey, one Lua script per state change (the
 * scripts live in the {@code lua} module), each reply read as a typed outcome
 * ({@link io.echomq.queue.Settlement}, {@link io.echomq.queue.RetryOutcome},
 * {@link io.echomq.queue.Rejected}, ...). {@link io.echomq.queue.QueueClient} is connected once and
 * hands out one part per role, so each caller depends only on what it does:
 * {@link io.echomq.queue.Submissions} (producers), {@link io.echomq.queue.Leases} (workers),
 * {@link io.echomq.queue.QueueAdmin} (operators and maintenance), {@link io.echomq.queue.QueueReads}
 * (consoles). Features of their own live beside it: {@code schedule} (recurring jobs), {@code limits}
 * (caps and rate limits), {@code outbox} (what the resource adapter's relays share with consoles).
 * {@code internal} owns key names ({@code QueueKeys}), loading and calling scripts
 * ({@code ScriptRunner}), reading replies ({@code Replies}), checking input ({@code RequestChecks})
 * and plain commands ({@code ValkeyCommands}).
 *
 * <p>Must not touch: PostgreSQL, threads, or any decision about what to do next with a job; no
 * read-modify-write from Java (invariant 2). Nothing outside {@code io.echomq.queue} and its
 * feature packages imports {@code io.echomq.queue.internal}.
 */
package io.echomq.queue;

