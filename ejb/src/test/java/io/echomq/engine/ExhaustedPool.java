package io.echomq.engine;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source in front of a real pool that can be made to look exhausted: while it is, every
 * {@code getConnection} waits until it is refilled, and, like a container's pool that ignores
 * interrupts, an interrupt does not end the wait. Connections taken before stay usable.
 */
final class ExhaustedPool implements DataSource {

    private final DataSource pool;
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger mostWaiting = new AtomicInteger();
    /** Guarded by this. */
    private boolean exhausted;

    ExhaustedPool(DataSource pool) {
        this.pool = pool;
    }

    synchronized void exhaust() {
        exhausted = true;
    }

    synchronized void refill() {
        exhausted = false;
        notifyAll();
    }

    /** The most callers that waited for a connection at one time. */
    int mostWaiting() {
        return mostWaiting.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        awaitRefill();
        return pool.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        awaitRefill();
        return pool.getConnection(username, password);
    }

    private synchronized void awaitRefill() {
        if (!exhausted) {
            return;
        }
        mostWaiting.accumulateAndGet(waiting.incrementAndGet(), Math::max);
        boolean interrupted = false;
        try {
            while (exhausted) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            waiting.decrementAndGet();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("io.echomq.engine");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return pool.isWrapperFor(type);
    }
}
