package io.echomq.effect;

import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatements;

/**
 * Who begins and ends a job's effect transaction. The engine's own workers run it as a local
 * transaction on EchoMQ's pool ({@link #local}); the resource adapter runs it in the
 * message-driven bean's container-managed JTA transaction, so the bean's own writes commit with
 * the effect row.
 *
 * <p>Invariant 11, for every implementation: {@link #inTransaction} returns only once the work's
 * writes are committed, and throws when they are not (the work threw, or the commit failed).
 */
public interface EffectTransactions {

    /** Runs {@code work} in a transaction of its own: committed when it returns, rolled back when it throws (then rethrown). */
    <R> R inTransaction(HandleCallback<R, RuntimeException> work);

    /** Runs {@code work} outside any effect transaction, each statement on its own: reads and retention's deletes. */
    <R> R withHandle(HandleCallback<R, RuntimeException> work);

    /**
     * These transactions, with every statement run in them given up after {@code limit} (rounded
     * up to whole seconds, JDBC's unit): JDBC's query timeout, which the PostgreSQL driver enforces
     * by cancelling the statement on the server, so a lock wait or a slow statement ends and its
     * connection is free again. Portable to any data source, the application's pool included.
     */
    default EffectTransactions withQueryTimeout(Duration limit) {
        int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (limit.toMillis() + 999) / 1000));
        EffectTransactions unbounded = this;
        return new EffectTransactions() {
            @Override
            public <R> R inTransaction(HandleCallback<R, RuntimeException> work) {
                return unbounded.inTransaction(handle -> work.withHandle(bounded(handle)));
            }

            @Override
            public <R> R withHandle(HandleCallback<R, RuntimeException> work) {
                return unbounded.withHandle(handle -> work.withHandle(bounded(handle)));
            }

            private Handle bounded(Handle handle) {
                // The handle's own copy of the configuration: other handles of the same Jdbi keep theirs.
                handle.getConfig(SqlStatements.class).setQueryTimeout(seconds);
                return handle;
            }
        };
    }

    /** Local transactions on {@code jdbi}'s data source, at the connection's isolation. */
    static EffectTransactions local(Jdbi jdbi) {
        return new EffectTransactions() {
            @Override
            public <R> R inTransaction(HandleCallback<R, RuntimeException> work) {
                return jdbi.inTransaction(work);
            }

            @Override
            public <R> R withHandle(HandleCallback<R, RuntimeException> work) {
                return jdbi.withHandle(work);
            }
        };
    }
}
