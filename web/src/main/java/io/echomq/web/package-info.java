/**
 * The WAR: the JAX-RS application under {@code /api} (its contract is
 * {@code META-INF/openapi.yaml}) and what the deployment says about itself ({@code /api/about}).
 * The engine itself is started by {@code io.echomq.runtime.EchoMqEngine} in the engine module.
 *
 * <p>Must not: hold job semantics or talk to Valkey and PostgreSQL other than through the
 * engine's {@code QueueClient} and {@code EffectStore}.
 */
package io.echomq.web;
