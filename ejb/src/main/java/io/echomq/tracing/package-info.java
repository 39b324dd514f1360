/**
 * Traces and messaging metrics of the queue, by OpenTelemetry's messaging semantic conventions,
 * behind one seam: {@link io.echomq.tracing.JobTelemetry}. Submissions run in a {@code send}
 * span whose context is stored with the jobs; each delivery runs in a {@code process} span linked
 * to that context, with the effect transaction and the settlement as its children.
 * {@link io.echomq.tracing.JobTelemetry#OFF} does nothing and stores nothing; only
 * {@link io.echomq.tracing.OpenTelemetryJobs} touches the OpenTelemetry API, so the engine runs
 * where that API is absent (the standalone worker, an adapter on a server without MicroProfile
 * Telemetry).
 *
 * <p>Must not touch: Valkey or the database (the stored contexts are read through
 * {@link io.echomq.tracing.CreationContexts}); a telemetry failure never changes a job's fate.
 */
package io.echomq.tracing;
