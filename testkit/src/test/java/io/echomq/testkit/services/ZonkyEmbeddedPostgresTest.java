package io.echomq.testkit.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The embedded server keeps the durability it is asked for. The library starts every server with
 * fsync off, so a "durable" cluster that did not say otherwise measured commits that never waited
 * for the disk (every benchmark figure until this test was written).
 */
class ZonkyEmbeddedPostgresTest {

    @Test
    void aDurableClusterWaitsForTheDiskOnEveryCommit() throws Exception {
        assertThat(settingsOfACluster(true)).isEqualTo(Map.of("fsync", "on", "full_page_writes", "on", "synchronous_commit", "on"));
    }

    @Test
    void theTestDefaultClusterSkipsTheDiskForSpeed() throws Exception {
        assertThat(settingsOfACluster(false)).isEqualTo(Map.of("fsync", "off", "full_page_writes", "off", "synchronous_commit", "off"));
    }

    /** fsync, full_page_writes and synchronous_commit as a fresh cluster reports them. */
    private static Map<String, String> settingsOfACluster(boolean durable) throws Exception {
        return FreePort.retrying(port -> {
            EmbeddedPostgres cluster = ZonkyEmbeddedPostgres.startCluster(port, ServiceDirectories.fresh("durability-" + port), true,
                    durable, Map.of());
            try {
                String jdbcUrl = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
                PostgresProbe.awaitReady(jdbcUrl, "postgres", "", Duration.ofSeconds(30), Optional.empty());
                return Map.of(
                        "fsync", setting(jdbcUrl, "fsync"),
                        "full_page_writes", setting(jdbcUrl, "full_page_writes"),
                        "synchronous_commit", setting(jdbcUrl, "synchronous_commit"));
            } finally {
                cluster.close();
            }
        });
    }

    private static String setting(String jdbcUrl, String name) throws SQLException {
        return PostgresProbe.setting(jdbcUrl, "postgres", "", name);
    }
}
