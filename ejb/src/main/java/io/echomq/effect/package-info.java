/**
 * Running a job's effect exactly once: {@link io.echomq.effect.EffectStore} records the job in
 * PostgreSQL and runs the handler's effect in the same transaction, or finds the effect already
 * applied and skips it; {@link io.echomq.effect.Migrations} brings the schema up to date. Owns
 * the one rule for which effect row stands for a job ({@link io.echomq.effect.EffectStore#find}).
 *
 * <p>Must not touch: Valkey. The effect store never completes or retries a job; it says what
 * happened, and the worker's completer acts on it.
 */
package io.echomq.effect;
