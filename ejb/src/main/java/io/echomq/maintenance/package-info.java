/**
 * The queues' housekeeping, one service per duty: the {@code Reaper} returns expired leases
 * (the recovery that makes delivery at-least-once), the {@code RetentionTrimmer} deletes finished
 * jobs beyond the bounds, the {@code Reconciler} completes jobs whose effect committed but which
 * ended elsewhere. {@link io.echomq.maintenance.Maintenance} runs each on its own interval, fails
 * each run alone, and reports to a {@link io.echomq.maintenance.MaintenanceListener}.
 *
 * <p>Must not touch: running handlers or effects; jobs move only through the queue's scripts.
 */
package io.echomq.maintenance;
