/**
 * Claiming and every other state change of a job in Valkey: {@link io.echomq.queue.QueueClient}
 * runs one Lua script per state change (the scripts live in the {@code lua} module), and turns
 * each reply into an outcome ({@link io.echomq.queue.Settlement}, {@link io.echomq.queue.RetryOutcome},
 * {@link io.echomq.queue.Rejected}, ...). Owns: key names (one place, {@code internal.QueueKeys}),
 * loading and calling scripts ({@code internal.ScriptRunner}), reading replies
 * ({@code internal.Replies}), and which job a thing is about ({@link io.echomq.queue.JobIdentity}).
 *
 * <p>Must not touch: PostgreSQL, threads, or any decision about what to do next with a job; no
 * read-modify-write from Java (invariant 2). Nothing outside this package imports
 * {@code io.echomq.queue.internal}.
 */
package io.echomq.queue;
