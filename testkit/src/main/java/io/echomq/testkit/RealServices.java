package io.echomq.testkit;

import io.echomq.testkit.services.EnvironmentSetting;
import io.echomq.testkit.services.ServiceDiscovery;
import io.echomq.testkit.services.StartedPostgres;
import io.echomq.testkit.services.StartedValkey;
import io.echomq.testkit.services.ValkeyCluster;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that injects a real {@link ValkeyService} and a real {@link PostgresService}
 * into test, constructor and lifecycle method parameters.
 *
 * <pre>{@code
 * @ExtendWith(RealServices.class)   // or @WithRealServices
 * class SomeTest {
 *     @Test void t(ValkeyService valkey, PostgresService postgres) { ... }
 * }
 * }</pre>
 *
 * <p>Each server starts when a test first asks for it (a class that needs only Valkey never starts
 * PostgreSQL) and is shared by every test class of the run, and by code that takes no parameters
 * from JUnit through {@link #valkey()} and {@link #postgres()}; the servers stop when the test JVM exits. Where the servers come from is
 * described on {@code ServiceDiscovery} and logged once per server to stderr. If none can be had,
 * the test fails with {@link ServiceUnavailableException}; it is never skipped.
 */
public final class RealServices implements ParameterResolver {

    /*
     * One holder per JVM, not per extension context: code that Jupiter does not hand
     * parameters to (static helpers, the steps of property sequences) must see the same
     * servers. They stop when the JVM exits (a run killed hard is cleaned up by the next one,
     * see LeftoverServers).
     */
    private static final LazyService<StartedValkey> VALKEY = new LazyService<>("Valkey", ServiceDiscovery::valkey);
    private static final LazyService<StartedPostgres> POSTGRES = new LazyService<>("PostgreSQL", ServiceDiscovery::postgres);
    private static final LazyService<ValkeyCluster> VALKEY_CLUSTER = new LazyService<>("Valkey Cluster", ValkeyCluster::start);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RealServices::stopAll, "echomq-testkit-stop"));
    }

    /**
     * The run's Valkey, for code that cannot take parameters from JUnit (property sequences,
     * static helpers). Starts it on first use.
     *
     * @throws ServiceUnavailableException when no server can be had (the test fails)
     */
    public static ValkeyService valkey() {
        return VALKEY.get();
    }

    /** The run's PostgreSQL, like {@link #valkey()}. */
    public static PostgresService postgres() {
        return POSTGRES.get();
    }

    /**
     * The run's PostgreSQL for a benchmark: one the harness starts keeps fsync, full_page_writes
     * and synchronous_commit on (as {@code ECHOMQ_TEST_PG_DURABLE=true} asks); one given by URL is
     * what it is. Call it before anything else of the run asks for PostgreSQL.
     */
    public static PostgresService durablePostgres() {
        System.setProperty(EnvironmentSetting.POSTGRES_DURABLE, "true");
        return POSTGRES.get();
    }

    /**
     * The run's Valkey Cluster (3 masters + 3 replicas of child processes), shared like
     * {@link #valkey()}. Tests that kill nodes start their own with {@link ValkeyCluster#start()}.
     */
    public static ValkeyCluster valkeyCluster() {
        return VALKEY_CLUSTER.get();
    }

    private static void stopAll() {
        for (LazyService<?> service : java.util.List.of(VALKEY, POSTGRES, VALKEY_CLUSTER)) {
            try {
                service.close();
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("[echomq-testkit] stopping a server failed: " + e);
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ValkeyService.class || type == PostgresService.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        try {
            if (type == ValkeyService.class) {
                return valkey();
            }
            if (type == PostgresService.class) {
                return postgres();
            }
        } catch (ServiceUnavailableException e) {
            // A resolution failure fails the test (it does not abort or skip it).
            throw new ParameterResolutionException(e.getMessage(), e);
        }
        throw new ParameterResolutionException("RealServices cannot provide " + type.getName());
    }
}
