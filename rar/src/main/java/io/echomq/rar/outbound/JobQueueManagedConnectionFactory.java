package io.echomq.rar.outbound;

import io.echomq.api.JobQueueConnection;
import io.echomq.api.JobQueueConnectionFactory;
import io.echomq.rar.EchoMqResourceAdapter;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConfigProperty;
import jakarta.resource.spi.ConnectionDefinition;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterAssociation;
import java.io.PrintWriter;
import java.util.Objects;
import java.util.Set;
import java.util.logging.Logger;
import javax.security.auth.Subject;

/**
 * The outbound connection definition: applications get a {@link JobQueueConnectionFactory}, e.g.
 * <pre>{@code
 * @ConnectionFactoryDefinition(name = "java:app/echomq/jobs",
 *         interfaceName = "io.echomq.api.JobQueueConnectionFactory", resourceAdapter = "echomq",
 *         properties = {"dataSource=jdbc/orders"})
 * ...
 * @Resource(lookup = "java:app/echomq/jobs") JobQueueConnectionFactory jobs;
 * }</pre>
 * or an administrator's connector connection pool and resource for this class.
 *
 * <p>Config property {@code dataSource}: the JNDI name of the application's PostgreSQL data source
 * that holds the outbox (the same one the application writes its own data through, so the outbox
 * row commits with them); blank means the adapter's {@code defaultDataSource}
 * ({@value EchoMqResourceAdapter#DEFAULT_DATA_SOURCE}). Like the adapter's, it must be a name every
 * thread of the server can look up: a server resource or a {@code java:global} name.
 *
 * <p>The managed connections hold no physical connection (Valkey's pool is the adapter's, the
 * data source's the container's): pooling them costs nothing, and they offer no transaction
 * ({@code NoTransaction}): the outbox row joins the caller's JTA transaction through the data
 * source's own connection, enlisted by the container.
 */
@ConnectionDefinition(connectionFactory = JobQueueConnectionFactory.class, connectionFactoryImpl = JobQueueConnectionFactoryImpl.class,
        connection = JobQueueConnection.class, connectionImpl = JobQueueConnectionImpl.class)
public class JobQueueManagedConnectionFactory implements ManagedConnectionFactory, ResourceAdapterAssociation {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(JobQueueManagedConnectionFactory.class.getName());

    private String dataSource = "";
    private transient volatile EchoMqResourceAdapter adapter;
    private transient volatile OutboundEnqueuer enqueuer;
    private transient PrintWriter logWriter;

    @ConfigProperty(defaultValue = "",
            description = "JNDI name of the application's PostgreSQL data source holding the outbox (jobs enqueued inside a JTA "
                    + "transaction are written there); blank: the adapter's defaultDataSource")
    public void setDataSource(String name) {
        this.dataSource = name == null ? "" : name.strip();
    }

    public String getDataSource() {
        return dataSource;
    }

    @Override
    public Object createConnectionFactory(ConnectionManager manager) {
        return new JobQueueConnectionFactoryImpl(this, manager);
    }

    /** A factory outside a container's connection management (tests, plain Java). */
    @Override
    public Object createConnectionFactory() {
        return new JobQueueConnectionFactoryImpl(this, new UnmanagedConnectionManager());
    }

    @Override
    public ManagedConnection createManagedConnection(Subject subject, ConnectionRequestInfo info) throws ResourceException {
        enqueuer(); // fails here, at getConnection, when the adapter is not there
        return new JobQueueManagedConnection(this);
    }

    @Override
    public ManagedConnection matchManagedConnections(@SuppressWarnings("rawtypes") Set candidates, Subject subject,
            ConnectionRequestInfo info) {
        // Every managed connection of this factory is alike: no credentials, no physical connection.
        for (Object candidate : candidates) {
            if (candidate instanceof JobQueueManagedConnection connection && connection.factory() == this) {
                return connection;
            }
        }
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return adapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter resourceAdapter) throws ResourceException {
        if (!(resourceAdapter instanceof EchoMqResourceAdapter echomq)) {
            throw new ResourceException("EchoMQ's connection factory belongs to the EchoMQ resource adapter, not "
                    + (resourceAdapter == null ? "none" : resourceAdapter.getClass().getName()));
        }
        this.adapter = echomq;
    }

    /** The enqueue logic over the adapter's Valkey client and registry, built on first use. */
    OutboundEnqueuer enqueuer() throws ResourceException {
        OutboundEnqueuer built = enqueuer;
        if (built != null) {
            return built;
        }
        synchronized (this) {
            if (enqueuer == null) {
                EchoMqResourceAdapter ra = adapter;
                if (ra == null) {
                    throw new ResourceException("EchoMQ's connection factory is not associated with the resource adapter");
                }
                String name = dataSource;
                try {
                    enqueuer = new OutboundEnqueuer(ra.queueShards(), ra.transactions(), () -> ra.outboxRelay(name, "dataSource"));
                } catch (IllegalStateException e) {
                    throw new ResourceException(e.getMessage(), e);
                }
                warmUpRelay(ra, name);
            }
            return enqueuer;
        }
    }

    /**
     * Starts relaying the outbox when the factory is first used, not only at its first
     * transactional enqueue, so rows a crashed node left are sent soon after this one starts.
     */
    private static void warmUpRelay(EchoMqResourceAdapter ra, String name) {
        try {
            ra.timers().execute(() -> {
                try {
                    ra.outboxRelay(name, "dataSource");
                } catch (RuntimeException e) {
                    LOG.info("EchoMQ connection factory: no outbox relay yet for data source '" + name + "' (" + e.getMessage()
                            + "); only enqueues inside a transaction need it");
                }
            });
        } catch (RuntimeException e) {
            LOG.fine("EchoMQ connection factory: relay warm-up not scheduled: " + e);
        }
    }

    /** Used by tests to run the factory's connections over an enqueuer of their own, without an adapter. */
    void useEnqueuer(OutboundEnqueuer own) {
        this.enqueuer = own;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JobQueueManagedConnectionFactory that && dataSource.equals(that.dataSource)
                && Objects.equals(adapter, that.adapter);
    }

    @Override
    public int hashCode() {
        return dataSource.hashCode();
    }
}
