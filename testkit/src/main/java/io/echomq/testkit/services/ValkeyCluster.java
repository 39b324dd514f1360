package io.echomq.testkit.services;

import io.echomq.testkit.RealServices;
import io.echomq.testkit.ServiceUnavailableException;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Valkey Cluster for tests: three masters and three replicas, each a child
 * {@code valkey-server}/{@code redis-server} process on free loopback ports with
 * {@code cluster-enabled yes}, joined by {@code valkey-cli}/{@code redis-cli --cluster create
 * --cluster-replicas 1}. Every node has the same random password. Stopped by PID on
 * {@link #close()} (and, like every child server, when the test JVM dies).
 *
 * <p>{@link RealServices#valkeyCluster()} hands out one shared cluster per test run; a test that
 * kills nodes starts a private one with {@link #start()}.
 */
public final class ValkeyCluster implements Closeable {

    static final String LOOPBACK = "127.0.0.1";
    private static final int MASTERS = 3;
    private static final int NODES = MASTERS * 2;
    private static final Duration FORMING = Duration.ofSeconds(60);

    private final List<ValkeyClusterNode> nodes;
    private final String password;
    private final String description;
    private RedisClusterClient shared;

    private ValkeyCluster(List<ValkeyClusterNode> nodes, String password, String description) {
        this.nodes = nodes;
        this.password = password;
        this.description = description;
    }

    /**
     * Starts six nodes, creates the cluster and waits until every node reports
     * {@code cluster_state:ok} and every replica is in sync with its master.
     *
     * @throws ServiceUnavailableException when no server or cli binary is on PATH (the test fails)
     */
    public static ValkeyCluster start() {
        ClusterBinaries binaries = ClusterBinaries.onPath();
        String password = RandomSecret.hex(16);
        List<ValkeyClusterNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                nodes.add(ValkeyClusterNode.start(binaries.server(), password));
            }
            ValkeyCluster cluster = new ValkeyCluster(List.copyOf(nodes), password, binaries.server().getFileName()
                    + " cluster of " + MASTERS + " masters + " + MASTERS + " replicas on "
                    + nodes.stream().map(n -> Integer.toString(n.port())).collect(Collectors.joining(",")));
            cluster.create(binaries.cli());
            cluster.awaitHealthy(FORMING);
            TestkitConsole.info("Valkey Cluster: " + cluster.description);
            return cluster;
        } catch (Exception e) {
            nodes.forEach(ValkeyClusterNode::stop);
            throw new ServiceUnavailableException("Valkey Cluster could not be started: " + e.getMessage(), e);
        }
    }

    private void create(Path cli) throws Exception {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "-a", password, "--no-auth-warning", "--cluster", "create"));
        nodes.forEach(n -> command.add(LOOPBACK + ":" + n.port()));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path directory = ServiceDirectories.fresh("valkey-cluster-create-" + nodes.get(0).port());
        ChildProcess create = ChildProcess.start("cluster create", command, directory, directory.resolve("create.log"),
                ChildProcess.StopSignal.TERM, Optional.empty());
        if (create.awaitExit(FORMING) != 0) {
            throw new IllegalStateException("cluster create failed\n" + create.logTail());
        }
    }

    /** Waits until {@link #isHealthy()}: after creation, or after a killed node was restarted and resynchronised. */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isHealthy()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster not ok within " + timeout + ": " + nodes);
            }
            sleep(100);
        }
    }

    /** Every node up, reporting {@code cluster_state:ok}, every replica's link to its master up. */
    public boolean isHealthy() {
        return nodes.stream().allMatch(n -> n.isAlive() && n.reportsClusterOk() && n.replicaInSync());
    }

    /** {@code host:port,host:port,...}: the form {@code echomq.valkey.cluster-nodes} takes. */
    public String seedNodes() {
        return nodes.stream().map(n -> LOOPBACK + ":" + n.port()).collect(Collectors.joining(","));
    }

    public Set<HostAndPort> nodes() {
        return nodes.stream().map(n -> new HostAndPort(LOOPBACK, n.port())).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    public String password() {
        return password;
    }

    public JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().password(password).build();
    }

    /** A new cluster client; the caller closes it. */
    public RedisClusterClient newClient() {
        return RedisClusterClient.builder().nodes(nodes()).clientConfig(clientConfig()).build();
    }

    /**
     * The one client of this cluster that the tests of a JVM share (a pool of connections per
     * node); it is closed with the cluster, so a test never closes it. A test that closes or breaks
     * its client's connections takes a {@link #newClient()} of its own.
     */
    public synchronized RedisClusterClient sharedClient() {
        if (shared == null) {
            shared = newClient();
        }
        return shared;
    }

    /** The port of the master serving {@code slot} now, asked of any live node. */
    public int masterPortOf(int slot) {
        for (ValkeyClusterNode node : nodes) {
            if (!node.isAlive()) {
                continue;
            }
            try (Jedis jedis = connectTo(node.port())) {
                for (Object range : jedis.clusterSlots()) {
                    List<?> r = (List<?>) range;
                    if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                        return ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                    }
                }
            } catch (JedisException e) {
                // A node that is going down: ask the next one.
            }
        }
        throw new IllegalStateException("no live node knows a master of slot " + slot);
    }

    /** The port of the master serving {@code key}'s slot now (its hash tag's, when it has one). */
    public int masterPortOfKey(String key) {
        return masterPortOf(JedisClusterCRC16.getSlot(key));
    }

    /**
     * {@code count} names, {@code stem-0}, {@code stem-1}, ..., picked so that the hash tag
     * {@code {name}} of each lands on a different master now: keys tagged with them spread the
     * load over the cluster.
     */
    public List<String> hashTagsOnDistinctMasters(String stem, int count) {
        if (count > MASTERS) {
            throw new IllegalArgumentException("only " + MASTERS + " masters");
        }
        Map<Integer, String> byMaster = new LinkedHashMap<>();
        for (int i = 0; byMaster.size() < count; i++) {
            String name = stem + "-" + i;
            byMaster.putIfAbsent(masterPortOf(JedisClusterCRC16.getSlot("{" + name + "}")), name);
        }
        return List.copyOf(byMaster.values());
    }

    /** A plain connection to one node; the caller closes it. */
    public Jedis connectTo(int port) {
        return new Jedis(new HostAndPort(LOOPBACK, port), ValkeyProbe.config(Optional.empty(), Optional.of(password)));
    }

    /** The ports of the nodes that are masters now. */
    public List<Integer> masterPorts() {
        return nodes.stream().filter(ValkeyClusterNode::isAlive).map(ValkeyClusterNode::port)
                .filter(port -> {
                    try (Jedis jedis = connectTo(port)) {
                        return jedis.info("replication").contains("role:master");
                    } catch (JedisException e) {
                        return false;
                    }
                }).toList();
    }

    /** The process id of the node listening on {@code port}: what {@code kill -9} would be given. */
    public long pidOf(int port) {
        return node(port).pid();
    }

    /** SIGKILL (kill -9) to the node on {@code port}: no shutdown, no last replication. */
    public void killHard(int port) {
        node(port).killHard();
    }

    /** Starts a killed node again; it rejoins the cluster (as a replica when its replica took over). */
    public void restart(int port) {
        node(port).restart();
    }

    private ValkeyClusterNode node(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node of this cluster on port " + port));
    }

    public String description() {
        return description;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (shared != null) {
                shared.close();
            }
        }
        nodes.forEach(ValkeyClusterNode::signalStop);
        nodes.forEach(ValkeyClusterNode::stop);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }

    /** A server binary and the cli of the same family, both from PATH. */
    record ClusterBinaries(Path server, Path cli) {

        static ClusterBinaries onPath() {
            for (String family : List.of("valkey", "redis")) {
                Optional<Path> server = ExecutableOnPath.find(family + "-server");
                Optional<Path> cli = ExecutableOnPath.find(family + "-cli");
                if (server.isPresent() && cli.isPresent()) {
                    return new ClusterBinaries(server.get(), cli.get());
                }
            }
            throw new ServiceUnavailableException("a Valkey Cluster needs valkey-server + valkey-cli or redis-server + "
                    + "redis-cli on PATH (Debian: apt-get install redis-server, which brings redis-tools)"
                    + (EnvironmentSetting.runningInCi() ? "; CI is set: the CI image must provide them" : ""), null);
        }
    }
}
