package io.echomq.api;

/**
 * The adapter's outbound connection factory: inject it with
 * {@code @Resource(lookup = "…")} under the name the application or the administrator gave it
 * (for example with {@code @ConnectionFactoryDefinition(name = "java:app/echomq/jobs",
 * interfaceName = "io.echomq.api.JobQueueConnectionFactory", resourceAdapter = "echomq")}).
 */
public interface JobQueueConnectionFactory {

    /** A connection; close it when done (try-with-resources). */
    JobQueueConnection getConnection();
}
