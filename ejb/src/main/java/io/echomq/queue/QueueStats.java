package io.echomq.queue;

/**
 * Counts of jobs per state in one queue, read in one atomic step.
 *
 * @param lanesWithWork lanes with pending jobs, including the held ones
 * @param lanesHeld     lanes with pending jobs that wait for their lane's cap or rate limit
 * @param waitingChildren flow parents waiting for their children
 */
public record QueueStats(
        String queue,
        long pending,
        long delayed,
        long active,
        long completed,
        long dead,
        long cancelled,
        boolean paused,
        int lanesWithWork,
        int lanesHeld,
        long waitingChildren) {

    public long total() {
        return pending + delayed + active + completed + dead + cancelled + waitingChildren;
    }

    public long count(JobState state) {
        return switch (state) {
            case PENDING -> pending;
            case DELAYED -> delayed;
            case ACTIVE -> active;
            case COMPLETED -> completed;
            case DEAD -> dead;
            case CANCELLED -> cancelled;
            case WAITING_CHILDREN -> waitingChildren;
        };
    }
}
