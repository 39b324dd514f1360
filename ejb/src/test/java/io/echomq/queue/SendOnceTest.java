package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.faults.FaultProxy;
import io.echomq.testkit.services.ValkeyCluster;
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
 * Nothing sends a non-idempotent script twice on the caller's behalf (docs/ARCHITECTURE.md, invariant 10).
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
    /** How long the proxy holds each chunk while a cut is armed: the cut, right after the request, wins over the reply. */
    private static final long REPLY_DELAY_MS = 100;

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
        client.reads().stats(queue);
        observer.submissions().enqueue(queue, NewJob.of("first"));
        observer.leases().completeAndClaim(queue, List.of(), LEASE, 0, "warm-up");

        Cut unkeyed = cutOnce(proxy, marker -> client.submissions().enqueue(queue, NewJob.of(marker)), () -> observer.reads().stats(queue).pending(), 1);
        assertThat(unkeyed.unknown()).hasMessageContaining("enqueue-4.lua").hasMessageContaining("unknown")
                .hasMessageContaining("not sent again");
        long pending = observer.reads().stats(queue).pending();
        assertThat(pending).as("the unkeyed submission ran once: one job").isEqualTo(unkeyed.before() + 1);

        String keyed = marker();
        proxy.slow(REPLY_DELAY_MS);
        proxy.cutAfterClientSends(keyed);
        try {
            Enqueued answered = client.submissions().enqueue(queue, NewJob.of(keyed).withIdempotencyKey(keyed));
            assertThat(answered.state()).isEqualTo(JobState.PENDING);
        } catch (QueueUnavailableException e) {
            assertThat(e).as("a keyed submission is resendable: never reported unknown").isNotInstanceOf(QueueOutcomeUnknownException.class);
            assertThat(client.submissions().enqueue(queue, NewJob.of(keyed).withIdempotencyKey(keyed)).replayed())
                    .as("the caller's resend answers the first job").isTrue();
        }
        proxy.heal();
        assertThat(observer.reads().stats(queue).pending()).as("the keyed submission made one job, resent or not").isEqualTo(pending + 1);

        observer.submissions().enqueueBatch(queue, List.of(NewJob.of("a"), NewJob.of("b"), NewJob.of("c"), NewJob.of("d"), NewJob.of("e"),
                NewJob.of("f")));
        Cut roundTrip = cutOnce(proxy, marker -> client.leases().completeAndClaim(queue, List.of(), LEASE, 2, "w-" + marker),
                () -> observer.reads().stats(queue).active(), 2);
        assertThat(roundTrip.unknown()).hasMessageContaining("complete-claim-6.lua");
        assertThat(observer.reads().stats(queue).active()).as("the lost round trip leased once").isEqualTo(roundTrip.before() + 2);
    }

    /** A request cut after it was sent: what the caller heard, and the measure taken just before. */
    private record Cut(QueueOutcomeUnknownException unknown, long before) {
    }

    /**
     * Arms the proxy with a fresh marker and makes the call carrying it, until the call's reply
     * was lost. Replies are delayed by {@link #REPLY_DELAY_MS} meanwhile, so the cut that follows
     * the request closes the connection before its reply passes; should a reply still pass (or
     * the request reach the proxy in two reads and slip through uncut), the call returned
     * normally and must have taken effect exactly once ({@code measure} grew by {@code delta}, not
     * twice that: sent again behind the caller's back, the failure this test exists for); it is
     * then tried again, at most 5 times.
     */
    private static Cut cutOnce(FaultProxy proxy, java.util.function.Consumer<String> call, java.util.function.LongSupplier measure,
            long delta) {
        for (int attempt = 0; attempt < 5; attempt++) {
            long before = measure.getAsLong();
            String marker = marker();
            proxy.slow(REPLY_DELAY_MS);
            proxy.cutAfterClientSends(marker);
            try {
                call.accept(marker);
            } catch (QueueOutcomeUnknownException e) {
                return new Cut(e, before);
            } finally {
                proxy.heal();
            }
            assertThat(measure.getAsLong()).as("the call returned normally: it ran once, not again behind its caller's back")
                    .isEqualTo(before + delta);
        }
        throw new AssertionError("no reply was lost in 5 tries");
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
