/**
 * The one assembly of the engine: {@link io.echomq.engine.EngineAssembly} builds workers and
 * maintenance over a queue client and an effect store, for every runtime (the WAR, the
 * standalone worker, the tests, the benchmark); {@link io.echomq.engine.RunningEngine} starts
 * one from an {@code EngineConfig} (connections, migrations, a worker per handler binding,
 * maintenance) and stops it with one deadline.
 *
 * <p>Must not touch: where settings come from (that is {@code io.echomq.runtime}), or where threads
 * come from (the caller's thread factory). Which work shares a thread with which is decided here,
 * by {@link io.echomq.engine.EngineThreads}: lease upkeep never waits behind database work.
 */
package io.echomq.engine;
