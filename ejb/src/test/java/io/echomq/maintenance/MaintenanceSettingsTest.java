package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Retention;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The two periods maintenance settings name: the retention trimmer's and the effect retention's walk. */
class MaintenanceSettingsTest {

    @Test
    void anEffectRowOutlivesItsAgeByItsPartitionsWidthWhateverTheTrimmerInterval() {
        Maintenance.Settings settings = new Maintenance.Settings(Duration.ofSeconds(1), 500, Retention.DEFAULT,
                Duration.ofHours(1), Duration.ofSeconds(30), 200, Duration.ofDays(7));

        // A partition spans an eighth of the age (21 h), longer than the DEFAULT partition's walk (30 s).
        assertThat(settings.effectRowLifetime()).isEqualTo(Duration.ofDays(7).plusHours(21).plusSeconds(1));
    }

    @Test
    void anEffectRowOutlivesAShortAgeByTheWalkPeriodWhenThatIsLongerThanAPartition() {
        Maintenance.Settings settings = new Maintenance.Settings(Duration.ofSeconds(1), 500, Retention.DEFAULT,
                Duration.ofHours(1), Duration.ofSeconds(30), 200, Duration.ofMinutes(2));

        assertThat(settings.effectRowLifetime()).isEqualTo(Duration.ofMinutes(2).plusSeconds(30).plusSeconds(1));
    }
}
