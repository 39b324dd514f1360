package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * Which entries of a queue's job-event stream a reader wants: one job's, one lane's, some event
 * types' (each empty for all). The stream itself is not filtered; readers skip what does not match.
 */
public record EventFilter(Optional<String> jobId, Optional<String> lane, Set<String> events) {

    public static final EventFilter ALL = new EventFilter(Optional.empty(), Optional.empty(), Set.of());

    /**
     * @throws InvalidRequestException naming {@code job}, {@code lane} or {@code event} when one is not a
     *                                 job id, a lane name or one of {@link QueueEvent#TYPES}
     */
    public EventFilter {
        jobId.ifPresent(id -> RequestChecks.jobId("job", id));
        lane.ifPresent(RequestChecks::laneName);
        for (String event : events) {
            if (!QueueEvent.TYPES.contains(event)) {
                throw new InvalidRequestException("event", "must be one of " + QueueEvent.TYPES + ", was '" + event + "'");
            }
        }
        events = Set.copyOf(events);
    }

    public static EventFilter of(Optional<String> jobId, Optional<String> lane, Collection<String> events) {
        return new EventFilter(jobId, lane, Set.copyOf(events));
    }

    public boolean matches(QueueEvent event) {
        return jobId.map(event.jobId()::equals).orElse(true) && lane.map(event.lane()::equals).orElse(true)
                && (events.isEmpty() || events.contains(event.event()));
    }
}
