package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The split of claim budgets over shards by their lanes with work, as a pure function of the counts recorded. */
class ClaimSplitTest {

    @Test
    void claimsOfOneJobFollowTheLanesOfEachShard() {
        ClaimSplit split = new ClaimSplit(3);
        split.lanesWithWork(0, 4);
        split.lanesWithWork(1, 1);
        split.lanesWithWork(2, 1);

        int[] jobs = new int[3];
        for (int turn = 0; turn < 60; turn++) {
            int[] quotas = split.quotas(1);
            assertThat(Arrays.stream(quotas).sum()).as("turn %d", turn).isEqualTo(1);
            for (int shard = 0; shard < 3; shard++) {
                jobs[shard] += quotas[shard];
            }
        }

        assertThat(jobs).containsExactly(40, 10, 10);
    }

    @Test
    void aShardWithNoLanesIsStillAskedNowAndThen() {
        ClaimSplit split = new ClaimSplit(2);
        split.lanesWithWork(0, 5);
        split.lanesWithWork(1, 0);

        int[] quotas = split.quotas(12);

        assertThat(quotas).containsExactly(10, 2);
    }
}
