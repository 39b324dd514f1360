package io.echomq.testkit.services;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts server processes so that they do not outlive the test JVM.
 *
 * <p>Three layers, because each covers a different way of dying: the JUnit store stops servers at
 * the end of a normal run; a shutdown hook stops them when the JVM is asked to exit (Ctrl-C,
 * SIGTERM from a surefire timeout); and on Linux {@code setpriv --pdeathsig} makes the kernel
 * signal the server when the JVM is killed outright. The kernel sends that signal when the
 * <em>thread</em> that forked the child ends, not the process, so every server is forked from one
 * long-lived thread here, never from a JUnit worker thread that may finish early.
 */
public final class ChildProcessLauncher {

    private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();

    private static final ExecutorService FORKING_THREAD = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "echomq-testkit-process-starter");
        thread.setDaemon(true);
        return thread;
    });

    private static final Optional<String> SETPRIV = ExecutableOnPath.find("setpriv").map(Object::toString);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcessLauncher::stopAllLive, "echomq-testkit-stop-children"));
    }

    private ChildProcessLauncher() {
    }

    static boolean canSwitchUser() {
        return SETPRIV.isPresent();
    }

    /**
     * The command prefixed so that it gets {@code signal} when the JVM dies and, if {@code osUser}
     * is given, runs as that user. setpriv execs the server (no intermediate process), so the pid
     * we hold is the server's own.
     */
    public static List<String> wrap(List<String> command, ChildProcess.StopSignal signal, Optional<OsUser> osUser) {
        if (SETPRIV.isEmpty()) {
            if (osUser.isPresent()) {
                throw new IllegalStateException("setpriv (util-linux) is needed to run a server as OS user " + osUser.get().name());
            }
            return command;
        }
        List<String> wrapped = new ArrayList<>();
        wrapped.add(SETPRIV.get());
        wrapped.add("--pdeathsig");
        wrapped.add(signal.name());
        osUser.ifPresent(user -> wrapped.addAll(List.of(
                "--reuid", Long.toString(user.uid()), "--regid", Long.toString(user.gid()), "--init-groups")));
        wrapped.add("--");
        wrapped.addAll(command);
        return wrapped;
    }

    public static Process start(ProcessBuilder builder) throws IOException {
        // submit(), not execute(): an exception must not kill the forking thread (and with it every child).
        Future<Process> started = FORKING_THREAD.submit(builder::start);
        try {
            return started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + builder.command(), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("cannot start " + builder.command(), e.getCause());
        }
    }

    static void register(ChildProcess child) {
        LIVE.add(child);
    }

    public static void unregister(ChildProcess child) {
        LIVE.remove(child);
    }

    private static void stopAllLive() {
        List<ChildProcess> children = new ArrayList<>(LIVE);
        children.forEach(ChildProcess::signalStop);
        children.forEach(ChildProcess::stop);
    }

    /** An OS account to run a server as, by number so that setpriv needs no name lookup. */
    public record OsUser(String name, long uid, long gid) {

        public static Optional<OsUser> lookup(String name) {
            try {
                return Optional.of(new OsUser(name, Long.parseLong(id("-u", name)), Long.parseLong(id("-g", name))));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        private static String id(String option, String name) throws IOException {
            Process id = new ProcessBuilder("id", option, name).redirectErrorStream(true).start();
            String out = new String(id.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            try {
                if (id.waitFor() != 0) {
                    throw new IOException("id " + option + " " + name + ": " + out);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            return out;
        }
    }
}
