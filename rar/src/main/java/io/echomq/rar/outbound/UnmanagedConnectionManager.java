package io.echomq.rar.outbound;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;

/**
 * The connection manager of a factory used outside a container (the non-managed environment of
 * the Connectors spec): a managed connection per handle, destroyed when the handle closes.
 */
final class UnmanagedConnectionManager implements ConnectionManager {

    private static final long serialVersionUID = 1L;

    @Override
    public Object allocateConnection(ManagedConnectionFactory factory, ConnectionRequestInfo info) throws ResourceException {
        ManagedConnection connection = factory.createManagedConnection(null, info);
        connection.addConnectionEventListener(new ConnectionEventListener() {
            @Override
            public void connectionClosed(ConnectionEvent event) {
                try {
                    connection.destroy();
                } catch (ResourceException ignored) {
                    // nothing is held
                }
            }

            @Override
            public void localTransactionStarted(ConnectionEvent event) {
            }

            @Override
            public void localTransactionCommitted(ConnectionEvent event) {
            }

            @Override
            public void localTransactionRolledback(ConnectionEvent event) {
            }

            @Override
            public void connectionErrorOccurred(ConnectionEvent event) {
                try {
                    connection.destroy();
                } catch (ResourceException ignored) {
                    // nothing is held
                }
            }
        });
        return connection.getConnection(null, info);
    }
}
