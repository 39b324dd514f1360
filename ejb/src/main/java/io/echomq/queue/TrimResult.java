package io.echomq.queue;

/** How many finished jobs one retention pass deleted. */
public record TrimResult(String queue, int completed, int cancelled, int dead) {

    public int total() {
        return completed + cancelled + dead;
    }
}
