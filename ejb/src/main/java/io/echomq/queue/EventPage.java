package io.echomq.queue;

import java.util.List;

/**
 * What one read of a job-event stream found: the matching entries, oldest first, and the id of
 * the last entry read (matching or not), which the next read starts after.
 */
public record EventPage(List<QueueEvent> events, String lastRead) {
}
