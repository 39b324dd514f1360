package io.echomq.testkit.services;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One cluster-enabled server process of a {@link ValkeyCluster}: its client port and its cluster
 * bus port are both picked free (the default bus port, client port + 10000, may not exist or be
 * taken), and a short node timeout makes failover take seconds, not the default 15 s.
 */
final class ValkeyClusterNode {

    /** How long a silent master is tolerated before its replica takes over. */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);
    private static final Duration STARTUP = Duration.ofSeconds(10);

    private final int port;
    private final List<String> command;
    private final Path directory;
    private final JedisClientConfig probe;
    private volatile ChildProcess process;

    private ValkeyClusterNode(int port, List<String> command, Path directory, JedisClientConfig probe) {
        this.port = port;
        this.command = command;
        this.directory = directory;
        this.probe = probe;
    }

    static ValkeyClusterNode start(Path binary, String password) throws Exception {
        return FreePort.retrying(port -> startOn(binary, password, port, FreePort.onLoopback()));
    }

    private static ValkeyClusterNode startOn(Path binary, String password, int port, int busPort) throws Exception {
        Path directory = ServiceDirectories.fresh("valkey-cluster-" + port);
        ValkeyClusterNode node = new ValkeyClusterNode(port, command(binary, password, port, busPort, directory), directory,
                ValkeyProbe.config(Optional.empty(), Optional.of(password)));
        node.launch();
        return node;
    }

    /**
     * Starts the server process; after a crash, the same node again (same ports, same
     * {@code nodes.conf}): it rejoins the cluster, as a replica if its slots moved meanwhile.
     */
    private void launch() throws Exception {
        ChildProcess server = ChildProcess.start("cluster node on port " + port, command, directory,
                directory.resolve("server.log"), ChildProcess.StopSignal.TERM, Optional.empty());
        try {
            ValkeyProbe.awaitPong(ValkeyCluster.LOOPBACK, port, probe, STARTUP, Optional.of(server));
        } catch (RuntimeException e) {
            throw server.stopAfterFailedStart(e);
        }
        process = server;
    }

    /** Starts a node that was {@linkplain #killHard killed} again. */
    void restart() {
        if (isAlive()) {
            throw new IllegalStateException(this + " is running");
        }
        try {
            launch();
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart " + this, e);
        }
    }

    private static List<String> command(Path binary, String password, int port, int busPort, Path directory) {
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--port", Integer.toString(port),
                "--cluster-port", Integer.toString(busPort),
                "--bind", ValkeyCluster.LOOPBACK,
                "--cluster-enabled", "yes",
                "--cluster-config-file", directory.resolve("nodes.conf").toString(),
                "--cluster-node-timeout", Long.toString(NODE_TIMEOUT.toMillis()),
                // The other masters' queues keep running while one shard fails over.
                "--cluster-require-full-coverage", "no",
                "--masterauth", password));
        command.addAll(ChildProcessValkey.privateServerOptions(directory, password));
        command.addAll(ChildProcessValkey.EPHEMERAL);
        return List.copyOf(command);
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    boolean reportsClusterOk() {
        return ask(jedis -> jedis.clusterInfo().contains("cluster_state:ok"));
    }

    /** A master, or a replica whose link to its master is up (it has the data a failover needs). */
    boolean replicaInSync() {
        return ask(jedis -> {
            String replication = jedis.info("replication");
            return replication.contains("role:master") || replication.contains("master_link_status:up");
        });
    }

    private boolean ask(Predicate<Jedis> question) {
        try (Jedis jedis = new Jedis(new HostAndPort(ValkeyCluster.LOOPBACK, port), probe)) {
            return question.test(jedis);
        } catch (JedisException e) {
            return false;
        }
    }

    void killHard() {
        process.killHard();
    }

    void signalStop() {
        process.signalStop();
    }

    void stop() {
        process.stop();
    }

    @Override
    public String toString() {
        return "node " + port + (isAlive() ? "" : " (dead)");
    }
}
