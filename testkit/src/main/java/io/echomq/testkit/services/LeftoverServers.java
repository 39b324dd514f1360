package io.echomq.testkit.services;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Stops servers whose test JVM died without cleaning up (killed build, IDE stop button) and removes
 * their directories. Directories of a JVM that is still alive (a parallel surefire fork) are left
 * alone. Parent-death signals already cover most of this on Linux; this covers the rest, such as
 * PostgreSQL daemonized by pg_ctl.
 */
final class LeftoverServers {

    /** Files holding a server's process id, relative to its service directory. */
    private static final List<String> PID_FILES = List.of(ChildProcess.PID_FILE, "data/postmaster.pid");

    private LeftoverServers() {
    }

    static void reap(Path base) {
        if (!Files.isDirectory(base)) {
            return;
        }
        try (Stream<Path> entries = Files.list(base)) {
            entries.filter(Files::isDirectory).filter(LeftoverServers::isAbandoned).forEach(LeftoverServers::clean);
        } catch (IOException | RuntimeException e) {
            TestkitConsole.info("could not clean leftovers under " + base + ": " + e);
        }
    }

    private static boolean isAbandoned(Path directory) {
        Optional<Long> owner = readPid(directory.resolve(ServiceDirectories.OWNER_FILE));
        if (owner.isEmpty()) {
            // Either very old or being created right now by another JVM: only the first is ours to clean.
            return modifiedBefore(directory, Instant.now().minus(Duration.ofMinutes(1)));
        }
        return owner.get() != ProcessHandle.current().pid()
                && ProcessHandle.of(owner.get()).map(ProcessHandle::isAlive).isEmpty();
    }

    private static void clean(Path directory) {
        for (String pidFile : PID_FILES) {
            readPid(directory.resolve(pidFile))
                    .flatMap(ProcessHandle::of)
                    .filter(process -> belongsTo(process, directory))
                    .ifPresent(process -> {
                        TestkitConsole.info("stopping leftover server pid " + process.pid() + " from " + directory);
                        process.destroyForcibly();
                        try {
                            process.onExit().get(5, TimeUnit.SECONDS);
                        } catch (Exception ignored) {
                            // Best effort: a zombie or a process we may not signal must not block the test run.
                        }
                    });
        }
        try {
            ServiceDirectories.deleteRecursively(directory);
        } catch (IOException | RuntimeException e) {
            TestkitConsole.info("could not delete " + directory + ": " + e);
        }
    }

    /**
     * Guards against a recycled process id: the process must run inside the directory (servers
     * rewrite their command line, so the working directory is the reliable clue on Linux).
     */
    private static boolean belongsTo(ProcessHandle process, Path directory) {
        try {
            Path cwd = Path.of("/proc", Long.toString(process.pid()), "cwd");
            if (Files.exists(cwd) && Files.readSymbolicLink(cwd).startsWith(directory)) {
                return true;
            }
        } catch (IOException | RuntimeException ignored) {
            // Not Linux, or not ours to inspect: fall back to the command line.
        }
        return process.info().commandLine().map(line -> line.contains(directory.toString())).orElse(false);
    }

    private static Optional<Long> readPid(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(file);
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean modifiedBefore(Path path, Instant instant) {
        try {
            FileTime modified = Files.getLastModifiedTime(path);
            return modified.toInstant().isBefore(instant);
        } catch (IOException e) {
            return false;
        }
    }
}
