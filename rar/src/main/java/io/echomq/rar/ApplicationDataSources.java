package io.echomq.rar;

import io.echomq.effect.Migrations;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The applications' data sources the adapter writes effect and outbox rows through, by JNDI
 * name, each looked up and brought to EchoMQ's schema once (the effect store, the outbox).
 *
 * <p>Names must be visible from any thread of the server: a server resource ({@code jdbc/orders})
 * or a {@code java:global/…} name. The adapter looks them up on its own threads and on the
 * container's activation threads, where an application's {@code java:comp}/{@code java:app}
 * names are not bound on every server.
 */
final class ApplicationDataSources {

    private final Map<String, DataSource> ready = new ConcurrentHashMap<>();

    /**
     * The data source bound to {@code jndiName}, migrated.
     *
     * @param property the setting that named it, for the message when it cannot be used
     * @throws IllegalArgumentException naming {@code property}: nothing is bound there, or it is not a data source
     */
    DataSource get(String jndiName, String property) {
        return ready.computeIfAbsent(jndiName, name -> migrated(lookUp(name, property)));
    }

    private static DataSource lookUp(String name, String property) {
        Object bound;
        try {
            bound = new InitialContext().lookup(name);
        } catch (NamingException e) {
            throw new IllegalArgumentException(property + ": no data source is bound at '" + name + "' (" + e.getMessage()
                    + "); create a JDBC resource for the application's PostgreSQL database under that name, or set "
                    + property + " to the name of one (a server resource such as jdbc/orders, or a java:global name)", e);
        }
        if (!(bound instanceof DataSource dataSource)) {
            throw new IllegalArgumentException(property + ": '" + name + "' is a " + bound.getClass().getName()
                    + ", not a javax.sql.DataSource");
        }
        return dataSource;
    }

    /**
     * Migrates on a thread of its own and waits: the caller may be inside an application's JTA
     * transaction (the first enqueue through a connection factory), where Flyway's own
     * transactions on an enlisted connection are refused (WildFly: "IJ031017: You cannot set
     * autocommit during a managed transaction"). A new thread is in no transaction. The lookup
     * stays on the caller's thread, whose naming context is the one the name was given in.
     */
    private static DataSource migrated(DataSource dataSource) {
        FutureTask<DataSource> migration = new FutureTask<>(() -> {
            Migrations.migrate(dataSource);
            return dataSource;
        });
        Thread thread = new Thread(migration, "echomq-rar-migrations");
        thread.setDaemon(true);
        thread.start();
        try {
            return migration.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failed) {
                throw failed;
            }
            if (e.getCause() instanceof Error fatal) {
                throw fatal;
            }
            throw new IllegalStateException("migrating EchoMQ's schema failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while migrating EchoMQ's schema", e);
        }
    }
}
