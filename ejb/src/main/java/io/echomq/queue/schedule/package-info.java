/**
 * Recurring jobs. A schedule's definition ({@link io.echomq.queue.schedule.Schedule}) names its
 * slots (cron or interval, {@link io.echomq.queue.schedule.ScheduleSlots}) and what to do with
 * slots missed ({@link io.echomq.queue.schedule.Misfire}); every server plans a firing from the
 * definition and the Valkey clock ({@link io.echomq.queue.schedule.FiringPlan}) and
 * {@link io.echomq.queue.schedule.ScheduleClient} has a script carry it out only on the state it
 * was planned on, so a slot fires one job however many servers tick it.
 *
 * <p>Planning is pure Java so that it can be tested without a server; the compare-and-set that
 * makes it safe lives in the scripts.
 */
package io.echomq.queue.schedule;
