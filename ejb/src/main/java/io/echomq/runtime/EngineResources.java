package io.echomq.runtime;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.UnifiedJedis;

/**
 * The connection factories the engine owns for one deployment: a Jedis pool to Valkey (one server or a cluster) and a
 * JDBC pool to PostgreSQL, plus the clients built on them. Created at deployment, closed on
 * undeploy, like a resource adapter's connection factories.
 */
final class EngineResources implements AutoCloseable {

    final UnifiedJedis redis;
    final HikariDataSource dataSource;
    final Jdbi jdbi;
    final QueueClient queue;
    final EffectStore effects;

    EngineResources(EngineConfig config) {
        UnifiedJedis client = config.valkey().open(config.valkeyPoolSize());
        HikariDataSource pg = null;
        try {
            pg = PostgresPool.open("echomq", config.jdbcUrl(), config.jdbcUser(), config.jdbcPassword(), config.jdbcPoolSize());
            this.redis = client;
            this.dataSource = pg;
            this.jdbi = Jdbi.create(pg);
            this.queue = QueueClient.connect(client, config.queueSettings(), config.replicaWait());
            this.effects = new EffectStore(jdbi, config.effects());
        } catch (RuntimeException e) {
            client.close();
            if (pg != null) {
                pg.close();
            }
            throw e;
        }
    }

    @Override
    public void close() {
        redis.close();
        dataSource.close();
    }
}
