package io.echomq.queue.shard;

import java.util.Arrays;

/**
 * Splits each claim's budget over the shards in proportion to their lanes with work (docs/SHARDING.md,
 * 5): every shard's claim serves its own lanes round-robin, so a lane's share is its shard's share
 * divided by the shard's lanes, and only shares in proportion to the lanes make every lane's share
 * equal whatever the spread. Each budget unit goes to the shard with the most credit after every shard
 * earned its weight (smooth weighted round-robin), so over turns of any budget, even of one job, each
 * shard's units follow its weight within one unit. A shard counts as at least one lane, since its last
 * count may be stale: one with no lanes still gets asked now and then, and its answer updates the
 * count. Thread-safe.
 */
final class ClaimSplit {

    private final int[] lanes;
    private final long[] credit;

    ClaimSplit(int shards) {
        this.lanes = new int[shards];
        this.credit = new long[shards];
        Arrays.fill(lanes, 1);
    }

    /** Records a shard's lanes with work, as its last claim answered them. */
    synchronized void lanesWithWork(int shard, int count) {
        lanes[shard] = Math.max(1, count);
    }

    /** The budget of each shard for a claim of {@code budget} jobs; the quotas sum to {@code budget}. */
    synchronized int[] quotas(int budget) {
        int[] quota = new int[lanes.length];
        long total = 0;
        for (int weight : lanes) {
            total += weight;
        }
        for (int unit = 0; unit < budget; unit++) {
            int richest = 0;
            for (int shard = 0; shard < lanes.length; shard++) {
                credit[shard] += lanes[shard];
                if (credit[shard] > credit[richest]) {
                    richest = shard;
                }
            }
            credit[richest] -= total;
            quota[richest]++;
        }
        return quota;
    }
}
