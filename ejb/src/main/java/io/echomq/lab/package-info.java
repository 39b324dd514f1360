/**
 * The guarantees lab: one demo charge per run on a throwaway queue, delivered by the engine's own
 * worker with a crash injected, to show at-most-once, at-least-once and exactly-once effect side
 * by side. Not part of the engine: the engine never imports it.
 */
package io.echomq.lab;
