package io.echomq.engine;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import io.echomq.runtime.EngineConfig;
import io.echomq.runtime.PostgresPool;
import io.echomq.tracing.JobTelemetry;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.UnifiedJedis;

/**
 * The connection factories the engine owns for one deployment: a Jedis pool to Valkey (one server or a cluster) and a
 * JDBC pool to PostgreSQL, plus the clients built on them. Created at deployment, closed on
 * undeploy, like a resource adapter's connection factories.
 */
public final class EngineConnections implements AutoCloseable {

    private final UnifiedJedis redis;
    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final QueueClient queue;
    private final EffectStore effects;

    /** @param telemetry traces and meters the queue client's submissions and the workers over it */
    public EngineConnections(EngineConfig config, JobTelemetry telemetry) {
        UnifiedJedis client = config.valkey().open(config.valkeyPoolSize());
        HikariDataSource pg = null;
        try {
            pg = PostgresPool.open("echomq", config.jdbcUrl(), config.jdbcUser(), config.jdbcPassword(), config.jdbcPoolSize());
            this.redis = client;
            this.dataSource = pg;
            this.jdbi = Jdbi.create(pg);
            this.queue = QueueClient.connect(client, config.queueSettings(), config.replicaWait(), telemetry);
            this.effects = new EffectStore(jdbi, config.effects());
        } catch (RuntimeException e) {
            client.close();
            if (pg != null) {
                pg.close();
            }
            throw e;
        }
    }

    public UnifiedJedis redis() {
        return redis;
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    public QueueClient queue() {
        return queue;
    }

    public EffectStore effects() {
        return effects;
    }

    @Override
    public void close() {
        redis.close();
        dataSource.close();
    }
}
