package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.schedule.Misfire;
import io.echomq.queue.schedule.Schedule;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code echomq.schedules.<name>.*}: read, defaulted, and every bad value refused naming its key. */
class ScheduleConfigTest {

    private static Map<String, String> base() {
        Map<String, String> env = new HashMap<>();
        env.put("echomq.valkey.url", "redis://127.0.0.1:6379");
        env.put("echomq.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/echomq");
        env.put("echomq.schedules", "nightly, tick");
        env.put("echomq.schedules.nightly.queue", "reports");
        env.put("echomq.schedules.nightly.cron", "0 3 * * *");
        env.put("echomq.schedules.nightly.zone", "Europe/Paris");
        env.put("echomq.schedules.nightly.payload", "{\"report\":\"daily\"}");
        env.put("echomq.schedules.nightly.misfire", "skip");
        env.put("ECHOMQ_SCHEDULES_TICK_QUEUE", "pings");
        env.put("ECHOMQ_SCHEDULES_TICK_INTERVAL_MS", "5000");
        env.put("ECHOMQ_SCHEDULES_TICK_MISFIRE", "run-each");
        env.put("ECHOMQ_SCHEDULES_TICK_MISFIRE_LIMIT", "3");
        env.put("ECHOMQ_SCHEDULES_TICK_LANE", "fast");
        return env;
    }

    private static EngineConfig config(Map<String, String> env) {
        return new EngineConfig(ConfigReader.environment(env));
    }

    @Test
    void schedulesAreReadByNameWithTheirDefaults() {
        EngineConfig config = config(base());
        assertThat(config.schedules()).hasSize(2);
        Schedule nightly = config.schedules().get(0);
        assertThat(nightly.name()).isEqualTo("nightly");
        assertThat(nightly.queue()).isEqualTo("reports");
        assertThat(nightly.cron()).hasValue("0 3 * * *");
        assertThat(nightly.zone()).hasValue("Europe/Paris");
        assertThat(nightly.misfire()).isEqualTo(Misfire.SKIP);
        assertThat(nightly.lane()).isEqualTo("default");
        assertThat(nightly.misfireGrace()).isEqualTo(Schedule.DEFAULT_MISFIRE_GRACE);
        Schedule tick = config.schedules().get(1);
        assertThat(tick.interval()).hasValue(Duration.ofSeconds(5));
        assertThat(tick.payload()).isEqualTo("{}");
        assertThat(tick.misfire()).isEqualTo(Misfire.RUN_EACH);
        assertThat(tick.misfireLimit()).isEqualTo(3);
        assertThat(tick.lane()).isEqualTo("fast");
        assertThat(tick.maxAttempts()).isEqualTo(Optional.empty());
    }

    @Test
    void badValuesNameTheirKey() {
        assertRefused("echomq.schedules.nightly.cron", "0 25 * * *", "echomq.schedules.nightly.cron");
        assertRefused("echomq.schedules.nightly.zone", "Nowhere/Else", "echomq.schedules.nightly.zone");
        assertRefused("echomq.schedules.nightly.misfire", "sometimes", "echomq.schedules.nightly.misfire");
        assertRefused("echomq.schedules.nightly.queue", "a{b}", "echomq.schedules.nightly.queue");
        assertRefused("echomq.schedules.nightly.lane", "bad lane", "echomq.schedules.nightly.lane");
        assertRefused("echomq.schedules.nightly.interval-ms", "1000", "echomq.schedules.nightly.interval-ms");
        assertRefused("ECHOMQ_SCHEDULES_TICK_INTERVAL_MS", "soon", "echomq.schedules.tick.interval-ms");
        assertRefused("ECHOMQ_SCHEDULES_TICK_MISFIRE_LIMIT", "0", "echomq.schedules.tick.misfire-limit");
        assertRefused("ECHOMQ_SCHEDULES_TICK_MISFIRE_GRACE_MS", "500", "echomq.schedules.tick.misfire-grace-ms");
        assertRefused("echomq.schedules", "nightly, tick, bad:name", "echomq.schedules");
        Map<String, String> noQueue = base();
        noQueue.remove("ECHOMQ_SCHEDULES_TICK_QUEUE");
        assertThatThrownBy(() -> config(noQueue)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("echomq.schedules.tick.queue");
    }

    private static void assertRefused(String key, String value, String named) {
        Map<String, String> env = base();
        env.put(key, value);
        assertThatThrownBy(() -> config(env)).as("%s=%s", key, value).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(named);
    }
}
