package io.echomq.queue;

import io.echomq.testkit.RealServices;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The state-machine properties of {@link StateMachinePropertyTest}, unchanged, on a real Valkey
 * Cluster of 3 masters and 3 replicas: each scenario's queue lands on whichever master owns its
 * hash tag's slot, so the scenarios run on all three.
 */
class ClusterStateMachinePropertyTest extends StateMachinePropertyTest {

    @Override
    UnifiedJedis connectToServer() {
        return RealServices.valkeyCluster().newClient();
    }

    /** The flow properties with both queues laid out over the cluster's three masters (docs/SHARDING.md, 3.4). */
    @Test
    void flowInvariantsHoldAfterEveryStepOnQueuesOfThreeShards() {
        flowInvariantsHoldAfterEveryStep(3);
    }
}
