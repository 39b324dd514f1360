/**
 * The guarantees lab: one demo charge per run on a throwaway queue, delivered by the engine's own
 * worker with a crash injected, to show at-most-once, at-least-once and exactly-once effect side
 * by side. The crashes are the lab's ({@link io.echomq.lab.CrashPoint}, {@link io.echomq.lab.SimulatedCrash}),
 * injected through the worker's one seam, {@link io.echomq.worker.FaultInjector}. Not part of the
 * engine: the engine never imports it, and the adapter's engine jar leaves it out.
 */
package io.echomq.lab;
