package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.FaultProxy;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyCluster;
import io.echomq.testkit.ValkeyService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Nothing sends a non-idempotent script twice on the caller's behalf (DESIGN.md, invariant 10).
 * A fault proxy between the client and the queue's server forwards one request whose reply is
 * then lost (the connection is cut right after the request went through, so the server runs it):
 * the caller hears {@link QueueOutcomeUnknownException}, and the script ran once. On a Valkey
 * Cluster the client would otherwise resend on its own (Jedis retries a command after a
 * connection error): an unkeyed submission made two jobs, a complete-claim leased twice. A keyed
 * submission may be resent: the key makes the resend answer the first job.
 */
class SendOnceTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final AtomicInteger MARKERS = new AtomicInteger();

    @Test
    void onAClusterAnUnkeyedSubmissionOrAWorkersRoundTripWhoseReplyIsLostRunsOnceAndIsReportedUnknown() throws Exception {
        ValkeyCluster cluster = RealServices.valkeyCluster();
        String queue = cluster.hashTagsOnDistinctMasters("send-once-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), 1).get(0);
        int master = cluster.masterPortOf(JedisClusterCRC16.getSlot(new QueueKeys(queue).prefix()));
        try (FaultProxy proxy = FaultProxy.to("127.0.0.1", master);
             RedisClusterClient direct = cluster.newClient();
             RedisClusterClient throughProxy = clusterClientThrough(cluster, master, proxy)) {
            assertRunsOnce(queue, proxy, QueueClient.connect(direct, QueueSettings.DEFAULT),
                    QueueClient.connect(throughProxy, QueueSettings.DEFAULT));
        }
    }

    @Test
    void onOneServerALostReplyIsReportedUnknownNotAsAnOutageThatChangedNothing() throws Exception {
        ValkeyService valkey = RealServices.valkey();
        String queue = "send-once-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (FaultProxy proxy = FaultProxy.to(valkey.host(), valkey.port());
             RedisClient direct = valkey.newClient();
             RedisClient throughProxy = RedisClient.builder().hostAndPort("127.0.0.1", proxy.port())
                     .clientConfig(valkey.clientConfig()).build()) {
            assertRunsOnce(queue, proxy, QueueClient.connect(direct, QueueSettings.DEFAULT),
                    QueueClient.connect(throughProxy, QueueSettings.DEFAULT));
        }
    }

    private static void assertRunsOnce(String queue, FaultProxy proxy, QueueClient observer, QueueClient client) {
        // Connected, so the next connection error is a lost reply, not a refused connection; and the
        // scripts are cached on the server, so the cut request is the one that runs (not a NOSCRIPT).
        client.stats(queue);
        observer.enqueue(queue, NewJob.of("first"));
        observer.completeAndClaim(queue, List.of(), LEASE, 0, "warm-up");

        String unkeyed = marker();
        proxy.cutAfterClientSends(unkeyed);
        assertThatThrownBy(() -> client.enqueue(queue, NewJob.of(unkeyed)))
                .isInstanceOf(QueueOutcomeUnknownException.class)
                .hasMessageContaining("enqueue-4.lua").hasMessageContaining("unknown").hasMessageContaining("not sent again");
        assertThat(proxy.markerCuts()).isEqualTo(1);
        assertThat(observer.stats(queue).pending()).as("the unkeyed submission ran once: one job").isEqualTo(2);
        String keyed = marker();
        proxy.cutAfterClientSends(keyed);
        try {
            Enqueued answered = client.enqueue(queue, NewJob.of(keyed).withIdempotencyKey(keyed));
            assertThat(answered.state()).isEqualTo(JobState.PENDING);
        } catch (QueueUnavailableException e) {
            assertThat(e).as("a keyed submission is resendable: never reported unknown").isNotInstanceOf(QueueOutcomeUnknownException.class);
            assertThat(client.enqueue(queue, NewJob.of(keyed).withIdempotencyKey(keyed)).replayed())
                    .as("the caller's resend answers the first job").isTrue();
        }
        assertThat(proxy.markerCuts()).isEqualTo(2);
        assertThat(observer.stats(queue).pending()).as("the keyed submission made one job, resent or not").isEqualTo(3);

        observer.enqueueBatch(queue, List.of(NewJob.of("a"), NewJob.of("b"), NewJob.of("c")));
        String worker = "w-" + marker();
        proxy.cutAfterClientSends(worker);
        assertThatThrownBy(() -> client.completeAndClaim(queue, List.of(), LEASE, 2, worker))
                .isInstanceOf(QueueOutcomeUnknownException.class).hasMessageContaining("complete-claim-6.lua");
        assertThat(proxy.markerCuts()).as("the round trip reached the server").isEqualTo(3);
        assertThat(observer.stats(queue).active()).as("the round trip leased once").isEqualTo(2);
        assertThat(observer.stats(queue).pending()).isEqualTo(4);
    }

    /**
     * A cluster client with the engine's retry settings (ValkeyEndpoint) whose connections to
     * {@code master} go through {@code proxy}: the cluster announces real ports, the mapper
     * rewrites that one.
     */
    private static RedisClusterClient clusterClientThrough(ValkeyCluster cluster, int master, FaultProxy proxy) {
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().password(cluster.password())
                .hostAndPortMapper(node -> node.getPort() == master ? new HostAndPort("127.0.0.1", proxy.port()) : node)
                .build();
        return RedisClusterClient.builder().nodes(cluster.nodes()).clientConfig(config)
                .topologyRefreshPeriod(Duration.ofSeconds(1)).maxTotalRetriesDuration(Duration.ofSeconds(4)).build();
    }

    private static String marker() {
        return "send-once-marker-" + System.nanoTime() + "-" + MARKERS.incrementAndGet();
    }
}
