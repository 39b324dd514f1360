/**
 * Property tests over random operation sequences, without a property-testing library:
 * {@link io.echomq.testkit.property.SequenceProperty} runs seeded sequences on fresh state with
 * the invariants checked after every step, reports a failure's seed and its shortest failing
 * prefix, and replays a seed given as {@code -Dechomq.property.seed=<seed>};
 * {@link io.echomq.testkit.property.Draw} is what the generators draw their choices from.
 */
package io.echomq.testkit.property;
