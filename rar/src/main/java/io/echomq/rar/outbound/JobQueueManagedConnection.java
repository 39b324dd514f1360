package io.echomq.rar.outbound;

import jakarta.resource.NotSupportedException;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.LocalTransaction;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionMetaData;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.security.auth.Subject;
import javax.transaction.xa.XAResource;

/**
 * A managed connection of {@link JobQueueManagedConnectionFactory}: no physical connection of its
 * own, only the handles given out ({@link JobQueueConnectionImpl}) and the container's listeners,
 * told when a handle closes. No local or XA transaction: Valkey cannot take part in one, and the
 * outbox row joins the caller's transaction through the data source.
 */
final class JobQueueManagedConnection implements ManagedConnection {

    private final JobQueueManagedConnectionFactory factory;
    private final List<ConnectionEventListener> listeners = new CopyOnWriteArrayList<>();
    private final Set<JobQueueConnectionImpl> handles = ConcurrentHashMap.newKeySet();
    private volatile boolean destroyed;
    private PrintWriter logWriter;

    JobQueueManagedConnection(JobQueueManagedConnectionFactory factory) {
        this.factory = factory;
    }

    JobQueueManagedConnectionFactory factory() {
        return factory;
    }

    OutboundEnqueuer enqueuer() throws ResourceException {
        if (destroyed) {
            throw new ResourceException("the EchoMQ connection was destroyed");
        }
        return factory.enqueuer();
    }

    @Override
    public Object getConnection(Subject subject, ConnectionRequestInfo info) throws ResourceException {
        if (destroyed) {
            throw new ResourceException("the EchoMQ connection was destroyed");
        }
        JobQueueConnectionImpl handle = new JobQueueConnectionImpl(this);
        handles.add(handle);
        return handle;
    }

    @Override
    public void associateConnection(Object connection) throws ResourceException {
        if (!(connection instanceof JobQueueConnectionImpl handle)) {
            throw new ResourceException("not an EchoMQ connection handle: " + (connection == null ? "null" : connection.getClass().getName()));
        }
        JobQueueManagedConnection previous = handle.associate(this);
        if (previous != null && previous != this) {
            previous.handles.remove(handle);
        }
        handles.add(handle);
    }

    /** Called by a handle's close(): the container may now return this connection to its pool. */
    void closed(JobQueueConnectionImpl handle) {
        handles.remove(handle);
        ConnectionEvent event = new ConnectionEvent(this, ConnectionEvent.CONNECTION_CLOSED);
        event.setConnectionHandle(handle);
        for (ConnectionEventListener listener : listeners) {
            listener.connectionClosed(event);
        }
    }

    /** Handles still open are invalidated: using one afterwards fails. */
    @Override
    public void cleanup() {
        for (JobQueueConnectionImpl handle : handles) {
            handle.invalidate();
        }
        handles.clear();
    }

    @Override
    public void destroy() {
        destroyed = true;
        cleanup();
        listeners.clear();
    }

    @Override
    public void addConnectionEventListener(ConnectionEventListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeConnectionEventListener(ConnectionEventListener listener) {
        listeners.remove(listener);
    }

    @Override
    public XAResource getXAResource() throws ResourceException {
        throw new NotSupportedException("EchoMQ connections take no part in XA: inside a JTA transaction a job is written "
                + "to the outbox through the application's data source, which is enlisted");
    }

    @Override
    public LocalTransaction getLocalTransaction() throws ResourceException {
        throw new NotSupportedException("EchoMQ connections have no local transactions (NoTransaction)");
    }

    @Override
    public ManagedConnectionMetaData getMetaData() {
        return new ManagedConnectionMetaData() {
            @Override
            public String getEISProductName() {
                return "EchoMQ";
            }

            @Override
            public String getEISProductVersion() {
                return "0.1";
            }

            @Override
            public int getMaxConnections() {
                return 0; // no limit of its own
            }

            @Override
            public String getUserName() {
                return null;
            }
        };
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }
}
