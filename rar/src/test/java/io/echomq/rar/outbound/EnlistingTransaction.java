package io.echomq.rar.outbound;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A stand-in for a container's JTA transaction over one real database, as the adapter sees it:
 * while it is active, {@link #dataSource()} hands the thread that began it the transaction's one
 * connection (enlisted: writes commit or roll back with it; close only gives it back), and every
 * other thread (the relay's) an unenlisted connection of its own, which sees only committed rows.
 * {@link #commit()} and {@link #rollBack()} end it and tell the interposed synchronizations.
 */
final class EnlistingTransaction implements TransactionSynchronizationRegistry {

    private final DataSource database;
    private final Thread owner = Thread.currentThread();
    private final Map<Object, Object> resources = new HashMap<>();
    private final List<Synchronization> synchronizations = new ArrayList<>();
    private Connection enlisted;
    private int status = Status.STATUS_ACTIVE;

    EnlistingTransaction(DataSource database) {
        this.database = database;
    }

    /** The application's data source as the container gives it out. */
    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && Thread.currentThread() == owner && status == Status.STATUS_ACTIVE) {
                        return enlisted();
                    }
                    return invoke(database, method, args);
                });
    }

    private Connection enlisted() throws SQLException {
        if (enlisted == null) {
            enlisted = database.getConnection();
            enlisted.setAutoCommit(false);
        }
        Connection connection = enlisted;
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> method.getName().equals("close") ? null : invoke(connection, method, args));
    }

    void commit() throws SQLException {
        end(true);
    }

    void rollBack() throws SQLException {
        end(false);
    }

    private void end(boolean commit) throws SQLException {
        if (enlisted != null) {
            if (commit) {
                enlisted.commit();
            } else {
                enlisted.rollback();
            }
            enlisted.close();
        }
        status = commit ? Status.STATUS_COMMITTED : Status.STATUS_ROLLEDBACK;
        synchronizations.forEach(s -> s.afterCompletion(status));
    }

    @Override
    public Object getTransactionKey() {
        return this;
    }

    @Override
    public void putResource(Object key, Object value) {
        resources.put(key, value);
    }

    @Override
    public Object getResource(Object key) {
        return resources.get(key);
    }

    @Override
    public void registerInterposedSynchronization(Synchronization sync) {
        synchronizations.add(sync);
    }

    @Override
    public int getTransactionStatus() {
        return Thread.currentThread() == owner ? status : Status.STATUS_NO_TRANSACTION;
    }

    @Override
    public void setRollbackOnly() {
        status = Status.STATUS_MARKED_ROLLBACK;
    }

    @Override
    public boolean getRollbackOnly() {
        return status == Status.STATUS_MARKED_ROLLBACK;
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
