package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Retention;
import org.junit.jupiter.api.Test;

class QueueDepthTest {

    /**
     * A full run measures memory over 100,000 jobs, and the settle path keeps only the newest
     * 10,000 completed: the first job's keys are gone (MEMORY USAGE answered nil and the run died
     * on it), and the completed bytes belong to the kept jobs, not to every job run.
     */
    @Test
    void memoryOfMoreJobsThanRetentionKeepsIsMeasuredOnTheJobsKept() {
        int kept = Retention.DEFAULT.completedKeepCount();

        QueueDepth.JobMemory memory = new QueueDepth(Servers.start()).memory(2 * kept);

        assertThat(memory.retained()).isEqualTo(kept);
        assertThat(memory.jobHashBytes()).isPositive();
        assertThat(memory.historyBytes()).isPositive();
        // A kept job holds its hash and gains a history and a set entry: more than it took pending.
        assertThat(memory.bytesPerCompleted()).isGreaterThan(memory.bytesPerPending());
    }
}
