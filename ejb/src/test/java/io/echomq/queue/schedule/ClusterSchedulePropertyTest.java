package io.echomq.queue.schedule;

import io.echomq.testkit.RealServices;
import redis.clients.jedis.UnifiedJedis;

/** The schedule properties of {@link SchedulePropertyTest}, unchanged, on a real Valkey Cluster of 3 masters and 3 replicas. */
class ClusterSchedulePropertyTest extends SchedulePropertyTest {

    @Override
    UnifiedJedis connectToServer() {
        return RealServices.valkeyCluster().newClient();
    }
}
