package io.echomq.queue.shard;

import io.echomq.queue.limits.LimitsInForce;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A sharded queue's settings as shard 0 holds them at one version (docs/SHARDING.md, section 6):
 * what every other shard copies. The texts are kept as shard 0 stores them, so a copy carries them
 * unchanged.
 *
 * @param version   shard 0's {@code meta_version}: every write of a setting bumps it
 * @param eventsMax the job-event stream's cap ("" while never set: the scripts' default)
 * @param limits    the queue-wide limits, comma-separated in the order of {@link LimitsInForce#META_FIELDS} ("" while never set)
 * @param source    where the limits came from ("" while never set)
 * @param kept      true when a write of configured limits found them applied before and changed nothing
 */
public record ShardSettings(long version, boolean paused, String eventsMax, String limits, String source, boolean kept) {

    /** The queue's limits and their source, read from shard 0 alone. */
    public LimitsInForce limitsInForce() {
        List<String> fields = new ArrayList<>(Arrays.asList(limits.split(",", -1)));
        while (fields.size() < LimitsInForce.META_FIELDS.size() - 1) {
            fields.add("");
        }
        fields.add(source);
        return LimitsInForce.of(fields.stream().map(f -> f.isEmpty() ? null : f).toList());
    }
}
