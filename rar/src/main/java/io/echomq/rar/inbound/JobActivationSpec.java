package io.echomq.rar.inbound;

import io.echomq.api.JobListener;
import io.echomq.queue.Backoff;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueClient;
import io.echomq.worker.WorkerSettings;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterAssociation;
import java.time.Duration;

/**
 * How a message-driven bean implementing {@link JobListener} is fed, set with
 * {@code @ActivationConfigProperty}: {@code queue} is required; every other property falls back
 * to the adapter's {@code echomq.worker.*} settings, whose defaults the README lists. Checked at
 * activation ({@link #validate}); a bad value fails the deployment with a message that names the
 * property.
 */
@jakarta.resource.spi.Activation(messageListeners = JobListener.class)
public class JobActivationSpec implements ActivationSpec, ResourceAdapterAssociation {

    private ResourceAdapter adapter;
    private String queue;
    private String dataSource;
    private Integer concurrency;
    private Long leaseMs;
    private Long jobTimeoutMs;
    private Long backoffBaseMs;
    private Long backoffMaxMs;
    private Long idlePollMs;

    /** The queue whose jobs the bean receives. Required. */
    public void setQueue(String queue) {
        this.queue = queue;
    }

    public String getQueue() {
        return queue;
    }

    /** JNDI name of the application's PostgreSQL data source, the one its own JPA or JDBC writes use; default: the adapter's. */
    public void setDataSource(String dataSource) {
        this.dataSource = dataSource;
    }

    public String getDataSource() {
        return dataSource;
    }

    /** Jobs delivered at once, each to its own bean instance; never more are leased. */
    public void setConcurrency(Integer concurrency) {
        this.concurrency = concurrency;
    }

    public Integer getConcurrency() {
        return concurrency;
    }

    /** Lease per job, kept alive by heartbeats while the bean runs. */
    public void setLeaseMs(Long leaseMs) {
        this.leaseMs = leaseMs;
    }

    public Long getLeaseMs() {
        return leaseMs;
    }

    /** Hard limit per delivery: past it the attempt fails and the job is retried. */
    public void setJobTimeoutMs(Long jobTimeoutMs) {
        this.jobTimeoutMs = jobTimeoutMs;
    }

    public Long getJobTimeoutMs() {
        return jobTimeoutMs;
    }

    /** Delay after the first failed attempt, doubled after each further one. */
    public void setBackoffBaseMs(Long backoffBaseMs) {
        this.backoffBaseMs = backoffBaseMs;
    }

    public Long getBackoffBaseMs() {
        return backoffBaseMs;
    }

    /** Longest delay between attempts. */
    public void setBackoffMaxMs(Long backoffMaxMs) {
        this.backoffMaxMs = backoffMaxMs;
    }

    public Long getBackoffMaxMs() {
        return backoffMaxMs;
    }

    /** Longest wait between claims while the queue stays empty. */
    public void setIdlePollMs(Long idlePollMs) {
        this.idlePollMs = idlePollMs;
    }

    public Long getIdlePollMs() {
        return idlePollMs;
    }

    @Override
    public void validate() throws InvalidPropertyException {
        if (queue == null || queue.isBlank()) {
            throw invalid("queue", "is required: the queue whose jobs this bean receives");
        }
        try {
            QueueClient.checkQueueName(queue);
        } catch (InvalidRequestException e) {
            throw invalid("queue", "'" + queue + "' is not a valid queue name: " + e.getMessage());
        }
        range("concurrency", concurrency, 1, 1_000);
        range("leaseMs", leaseMs, 100, Duration.ofHours(1).toMillis());
        range("jobTimeoutMs", jobTimeoutMs, 1, Duration.ofDays(1).toMillis());
        range("backoffBaseMs", backoffBaseMs, 0, Duration.ofDays(1).toMillis());
        range("backoffMaxMs", backoffMaxMs, 0, Duration.ofDays(7).toMillis());
        range("idlePollMs", idlePollMs, 1, Duration.ofMinutes(1).toMillis());
        if (backoffBaseMs != null && backoffMaxMs != null && backoffMaxMs < backoffBaseMs) {
            throw invalid("backoffMaxMs", "must be at least backoffBaseMs (" + backoffBaseMs + "), was " + backoffMaxMs);
        }
    }

    /**
     * The worker's settings: these properties over {@code defaults} (the adapter's). Never leases
     * ahead: a leased job waits for a free bean instance only if one is about to be free.
     */
    WorkerSettings workerSettings(WorkerSettings defaults) throws InvalidPropertyException {
        WorkerSettings settings = defaults.withLeaseAhead(false).withBatchSize(1);
        if (concurrency != null) {
            settings = settings.withConcurrency(concurrency);
        }
        if (leaseMs != null) {
            settings = settings.withLease(Duration.ofMillis(leaseMs));
        }
        if (jobTimeoutMs != null) {
            settings = settings.withJobTimeout(Duration.ofMillis(jobTimeoutMs));
        }
        if (idlePollMs != null) {
            settings = settings.withIdlePoll(Duration.ofMillis(idlePollMs));
        }
        if (backoffBaseMs != null || backoffMaxMs != null) {
            Backoff base = settings.backoff();
            Duration first = backoffBaseMs == null ? base.base() : Duration.ofMillis(backoffBaseMs);
            Duration cap = backoffMaxMs == null ? base.cap() : Duration.ofMillis(backoffMaxMs);
            if (cap.compareTo(first) < 0) {
                throw invalid(backoffMaxMs == null ? "backoffBaseMs" : "backoffMaxMs", "gives a first delay of " + first.toMillis()
                        + " ms above the longest delay " + cap.toMillis() + " ms");
            }
            settings = settings.withBackoff(new Backoff(first, cap));
        }
        return settings;
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return adapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter ra) throws ResourceException {
        this.adapter = ra;
    }

    private static void range(String property, Number value, long min, long max) throws InvalidPropertyException {
        if (value != null && (value.longValue() < min || value.longValue() > max)) {
            throw invalid(property, "must be between " + min + " and " + max + ", was " + value);
        }
    }

    private static InvalidPropertyException invalid(String property, String problem) {
        return new InvalidPropertyException("EchoMQ activation property " + property + " " + problem);
    }

    @Override
    public String toString() {
        return "EchoMQ activation of queue '" + queue + "'";
    }
}
