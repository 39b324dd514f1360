package io.echomq.testkit.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class AddressParsingTest {

    @Test
    void aValkeyUrlWithAPasswordOnly() {
        ValkeyAddress address = ValkeyAddress.parse("redis://:s%40cret@10.0.0.5:6380");

        assertThat(address).isEqualTo(new ValkeyAddress("10.0.0.5", 6380, Optional.empty(), Optional.of("s@cret")));
        assertThat(ValkeyAddress.format(address.host(), address.port(), address.user(), address.password()))
                .isEqualTo("redis://:s%40cret@10.0.0.5:6380");
    }

    @Test
    void aValkeyUrlWithUserAndDefaultPort() {
        assertThat(ValkeyAddress.parse("redis://app:pw@cache"))
                .isEqualTo(new ValkeyAddress("cache", 6379, Optional.of("app"), Optional.of("pw")));
        assertThat(ValkeyAddress.parse("redis://cache:7000/"))
                .isEqualTo(new ValkeyAddress("cache", 7000, Optional.empty(), Optional.empty()));
    }

    @Test
    void valkeyUrlsThatWouldBeMisreadAreRejectedWithoutEchoingThePassword() {
        assertThatThrownBy(() -> ValkeyAddress.parse("rediss://:pw@cache:6379"))
                .hasMessageContaining("TLS").hasMessageNotContaining("pw@");
        assertThatThrownBy(() -> ValkeyAddress.parse("redis://:pw@cache:6379/3"))
                .hasMessageContaining("database").hasMessageNotContaining("pw@");
    }

    @Test
    void aJdbcUrlGetsAnotherDatabaseAndKeepsItsParameters() {
        assertThat(JdbcUrl.withDatabase("jdbc:postgresql://db:5432/app?sslmode=disable", "other"))
                .isEqualTo("jdbc:postgresql://db:5432/other?sslmode=disable");
        assertThat(JdbcUrl.withDatabase("jdbc:postgresql://a:1,b:2/", "other")).isEqualTo("jdbc:postgresql://a:1,b:2/other");
        assertThat(JdbcUrl.withDatabase("jdbc:postgresql://db", "other")).isEqualTo("jdbc:postgresql://db/other");
        assertThat(JdbcUrl.withDatabase("jdbc:postgresql:app?user=x", "other")).isEqualTo("jdbc:postgresql:other?user=x");
        assertThat(JdbcUrl.redact("jdbc:postgresql://db/app?user=x&password=y&ssl=true"))
                .isEqualTo("jdbc:postgresql://db/app?user=x&password=***&ssl=true");
    }
}
