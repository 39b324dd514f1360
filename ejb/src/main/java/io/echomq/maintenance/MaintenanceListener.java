package io.echomq.maintenance;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What maintenance reports, duty by duty and queue by queue: for metrics and tests. Called on
 * the maintenance threads; implementations must be thread-safe and quick. A listener that
 * throws is logged and ignored.
 */
public interface MaintenanceListener {

    MaintenanceListener NONE = new MaintenanceListener() { };

    /** A run of {@code duty} over {@code queue} ended; {@code pass} says what it changed. */
    default void ran(String duty, String queue, Pass pass, Duration took) {
    }

    /** A run of {@code duty} over {@code queue} failed; the next run retries. */
    default void failed(String duty, String queue, RuntimeException error) {
    }

    /** Every one of {@code listeners}, each shielded from the others' failures. */
    static MaintenanceListener all(List<MaintenanceListener> listeners) {
        Logger log = Logger.getLogger(MaintenanceListener.class.getName());
        List<MaintenanceListener> each = List.copyOf(listeners);
        return new MaintenanceListener() {
            @Override
            public void ran(String duty, String queue, Pass pass, Duration took) {
                for (MaintenanceListener l : each) {
                    try {
                        l.ran(duty, queue, pass, took);
                    } catch (RuntimeException e) {
                        log.log(Level.WARNING, "maintenance listener " + l.getClass().getName() + " failed", e);
                    }
                }
            }

            @Override
            public void failed(String duty, String queue, RuntimeException error) {
                for (MaintenanceListener l : each) {
                    try {
                        l.failed(duty, queue, error);
                    } catch (RuntimeException e) {
                        log.log(Level.WARNING, "maintenance listener " + l.getClass().getName() + " failed", e);
                    }
                }
            }
        };
    }
}
