package io.echomq.queue;

/**
 * Counts of jobs per state in one queue, read in one atomic step.
 *
 * @param lanesWithWork lanes with pending jobs, including the held ones
 * @param lanesHeld     lanes with pending jobs that wait for their lane's cap or rate limit
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
        int lanesHeld) {

    public long total() {
        return pending + delayed + active + completed + dead + cancelled;
    }

    public long count(JobState state) {
        return switch (state) {
            case PENDING -> pending;
            case DELAYED -> delayed;
            case ACTIVE -> active;
            case COMPLETED -> completed;
            case DEAD -> dead;
            case CANCELLED -> cancelled;
        };
    }
}
