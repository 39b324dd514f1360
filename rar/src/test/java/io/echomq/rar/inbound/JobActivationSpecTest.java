package io.echomq.rar.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.worker.WorkerSettings;
import jakarta.resource.spi.InvalidPropertyException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A bad activation property fails the bean's deployment with a message naming the property; good ones become the worker's settings. */
class JobActivationSpecTest {

    private static JobActivationSpec forQueue(String queue) {
        JobActivationSpec spec = new JobActivationSpec();
        spec.setQueue(queue);
        return spec;
    }

    @Test
    void aMissingQueueIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new JobActivationSpec().validate())
                .isInstanceOf(InvalidPropertyException.class)
                .hasMessageContaining("property queue is required");
    }

    @Test
    void anInvalidQueueNameIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> forQueue("no spaces allowed").validate())
                .isInstanceOf(InvalidPropertyException.class)
                .hasMessageContaining("property queue")
                .hasMessageContaining("'no spaces allowed' is not a valid queue name");
    }

    @Test
    void outOfRangeNumbersAreRefusedNamingTheProperty() {
        JobActivationSpec zeroConcurrency = forQueue("orders");
        zeroConcurrency.setConcurrency(0);
        assertThatThrownBy(zeroConcurrency::validate).hasMessageContaining("property concurrency must be between 1 and 1000, was 0");

        JobActivationSpec shortLease = forQueue("orders");
        shortLease.setLeaseMs(5L);
        assertThatThrownBy(shortLease::validate).hasMessageContaining("property leaseMs must be between 100");

        JobActivationSpec invertedBackoff = forQueue("orders");
        invertedBackoff.setBackoffBaseMs(5_000L);
        invertedBackoff.setBackoffMaxMs(1_000L);
        assertThatThrownBy(invertedBackoff::validate).hasMessageContaining("property backoffMaxMs must be at least backoffBaseMs");
    }

    @Test
    void propertiesOverrideTheAdaptersDefaultsAndNeverLeaseAhead() throws InvalidPropertyException {
        JobActivationSpec spec = forQueue("orders");
        spec.setConcurrency(3);
        spec.setLeaseMs(6_000L);
        spec.setBackoffBaseMs(50L);
        spec.validate();

        WorkerSettings settings = spec.workerSettings(WorkerSettings.DEFAULT);

        assertThat(settings.concurrency()).isEqualTo(3);
        assertThat(settings.lease()).isEqualTo(Duration.ofSeconds(6));
        assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.backoff().base()).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.backoff().cap()).isEqualTo(WorkerSettings.DEFAULT.backoff().cap());
        assertThat(settings.jobTimeout()).isEqualTo(WorkerSettings.DEFAULT.jobTimeout());
        assertThat(settings.leaseAhead()).as("a job is leased only for a free bean instance").isFalse();
        assertThat(settings.batchSize()).isEqualTo(1);
    }
}
