package io.echomq.queue.schedule;

/**
 * A put or remove of a schedule on a sharded queue that a later put or remove of the same name
 * overtook (docs/SHARDING.md, 3.3): the later change was applied first, so this one changed
 * nothing, and applying it now would undo a change made after it. An API answers 409: read the
 * schedule and decide again.
 */
public class ScheduleChangedConcurrentlyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String name;

    public ScheduleChangedConcurrentlyException(String queue, String name, String change) {
        super("schedule '" + name + "' of queue '" + queue + "' was changed by another request while this " + change
                + " was under way, and that later change was applied first; this " + change + " changed nothing: read the schedule "
                + "and send it again if it is still wanted");
        this.name = name;
    }

    /** The schedule's name. */
    public String name() {
        return name;
    }
}
