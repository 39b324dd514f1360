/**
 * The at-least-once loop for one queue: dispatching work to runner threads
 * ({@link io.echomq.worker.QueueWorker}), the {@code complete-claim} turn that leases work and
 * sends acknowledgements ({@code Turn}, paced by {@code IdlePacer}, leasing short jobs ahead with
 * {@code LeaseAhead}), running the effect ({@code JobRunner}), settling what came of it
 * ({@code Completer}: the only code that acknowledges, retries or dead-letters a job it ran), and
 * keeping leases alive ({@code LeaseKeeper}). {@link io.echomq.worker.FaultInjector} is the one seam
 * where the guarantees lab and the proofs make a delivery die; in production it is
 * {@code FaultInjector.NONE}, which does nothing.
 *
 * <p>Must not touch: configuration sources, connection pools, or thread creation (threads come
 * from the caller); reaping, retention and reconciling belong to {@code io.echomq.maintenance}.
 */
package io.echomq.worker;
