package io.echomq.queue;

import java.util.List;
import java.util.Optional;

/**
 * One page of a queue's jobs in one state, oldest first (pending: by id; the other states: by
 * the time they entered it). Pass {@code next} back to get the following page; it is stable
 * while jobs come and go.
 */
public record JobPage(String queue, JobState state, List<JobView> jobs, Optional<String> next) {
}
