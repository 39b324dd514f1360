/**
 * A queue's concurrency caps and rate limits as values: what may be set ({@link
 * io.echomq.queue.limits.QueueLimits}), who set the ones in force ({@link
 * io.echomq.queue.limits.LimitsSource}) and how they are stored ({@link
 * io.echomq.queue.limits.LimitsInForce}). The claim script enforces them on the Valkey clock, so
 * they hold across servers; setting them is an operator's move ({@link io.echomq.queue.QueueAdmin}).
 * Whether configured limits may replace limits set over the API is decided in the set-limits
 * script alone, so every server decides it the same way.
 */
package io.echomq.queue.limits;
