package io.echomq.rar.outbound;

import io.echomq.api.JobQueueConnection;
import io.echomq.api.JobQueueConnectionFactory;
import io.echomq.api.JobQueueException;
import jakarta.resource.Referenceable;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionManager;
import java.io.Serializable;
import javax.naming.Reference;

/**
 * What applications inject: each {@link #getConnection()} asks the container's connection
 * manager for a handle (Serializable and Referenceable, as the Connectors spec requires of a
 * connection factory bound in JNDI).
 */
public final class JobQueueConnectionFactoryImpl implements JobQueueConnectionFactory, Serializable, Referenceable {

    private static final long serialVersionUID = 1L;

    private final JobQueueManagedConnectionFactory factory;
    private final ConnectionManager manager;
    private Reference reference;

    JobQueueConnectionFactoryImpl(JobQueueManagedConnectionFactory factory, ConnectionManager manager) {
        this.factory = factory;
        this.manager = manager;
    }

    @Override
    public JobQueueConnection getConnection() {
        try {
            return (JobQueueConnection) manager.allocateConnection(factory, null);
        } catch (ResourceException e) {
            throw new JobQueueException("no EchoMQ connection: " + e.getMessage(), e);
        }
    }

    @Override
    public void setReference(Reference reference) {
        this.reference = reference;
    }

    @Override
    public Reference getReference() {
        return reference;
    }
}
