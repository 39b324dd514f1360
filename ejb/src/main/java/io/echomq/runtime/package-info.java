/**
 * The engine in its surroundings: configuration read and checked in one place
 * ({@link io.echomq.runtime.EngineConfig} over a {@link io.echomq.runtime.ConfigReader}, from
 * MicroProfile Config or the environment), the Valkey endpoint and the PostgreSQL pool, and the
 * Jakarta EE integration of the WAR ({@link io.echomq.runtime.EchoMqEngine}: handler discovery
 * over CDI, the container's managed executors, start at deployment, stop at undeploy).
 *
 * <p>Must not touch: job semantics. It reads settings and hands them to the engine assembly.
 */
package io.echomq.runtime;
