package io.echomq.runtime;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;

/**
 * The connection factories the engine owns for one deployment: a Jedis pool to Valkey and a
 * JDBC pool to PostgreSQL, plus the clients built on them. Created at deployment, closed on
 * undeploy, like a resource adapter's connection factories.
 */
final class EngineResources implements AutoCloseable {

    final RedisClient redis;
    final HikariDataSource dataSource;
    final Jdbi jdbi;
    final QueueClient queue;
    final EffectStore effects;

    EngineResources(EngineConfig config) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(config.valkeyPoolSize());
        pool.setMaxIdle(config.valkeyPoolSize());
        RedisClient client = RedisClient.builder().fromURI(config.valkeyUrl()).poolConfig(pool).build();
        HikariDataSource pg = null;
        try {
            pg = PostgresPool.open("echomq", config.jdbcUrl(), config.jdbcUser(), config.jdbcPassword(), config.jdbcPoolSize());
            this.redis = client;
            this.dataSource = pg;
            this.jdbi = Jdbi.create(pg);
            this.queue = QueueClient.connect(client, config.queueSettings());
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
