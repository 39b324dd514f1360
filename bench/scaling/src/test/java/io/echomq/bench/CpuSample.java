package io.echomq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.Jedis;

/**
 * CPU time spent so far, read twice to get what a measurement cost: per process from
 * {@code /proc/<pid>/stat} (utime + stime), per Valkey master from its own {@code INFO cpu}, and
 * the whole machine from {@code /proc/stat}. All in seconds of one core.
 */
record CpuSample(long nanoTime, Map<Long, Double> secondsByPid, Map<Long, Map<String, Double>> threadSecondsByPid,
                 Map<Long, String> kindByPid, Map<Integer, Double> valkeyByPort, Map<Integer, Long> valkeyScriptCallsByPort,
                 double machineBusy) {

    private static final double TICKS_PER_SECOND = 100.0;   // USER_HZ: 100 on every Linux this runs on

    /**
     * The processes named in {@code kindByPid} (by pid, not by executable name: Debian's
     * {@code redis-server} is a link to {@code redis-check-rdb}), and the given Valkey masters.
     */
    static CpuSample take(Map<Long, String> kindByPid, List<Integer> valkeyMasters, Function<Integer, Jedis> connect) {
        Map<Long, Double> seconds = new HashMap<>();
        Map<Long, Map<String, Double>> threads = new HashMap<>();
        kindByPid.keySet().forEach(pid -> processSeconds(pid).ifPresent(s -> seconds.put(pid, s)));
        // Only the workers' threads are read: listing every thread of every process would cost the sample for nothing.
        kindByPid.forEach((pid, kind) -> {
            if (kind.equals("worker")) {
                threads.put(pid, threadSeconds(pid));
            }
        });
        Map<Integer, Double> valkey = new HashMap<>();
        Map<Integer, Long> calls = new HashMap<>();
        for (int port : valkeyMasters) {
            try (Jedis node = connect.apply(port)) {
                valkey.put(port, valkeySeconds(node.info("cpu")));
                calls.put(port, valkeyScriptCalls(node.info("commandstats")));
            }
        }
        return new CpuSample(System.nanoTime(), seconds, threads, Map.copyOf(kindByPid), valkey, calls, machineBusySeconds());
    }

    private static java.util.Optional<Double> processSeconds(long pid) {
        try {
            return java.util.Optional.of(statSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();   // the process ended meanwhile
        }
    }

    /**
     * A JVM's CPU by kind of thread: each thread of {@code /proc/<pid>/task} by its name (the
     * kernel keeps 15 characters of it) with its digits replaced by {@code #}, so a pool's threads
     * add up to one entry. A thread that ended meanwhile takes its time with it, so each entry is a
     * lower bound over an interval.
     */
    private static Map<String, Double> threadSeconds(long pid) {
        Map<String, Double> byKind = new HashMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                    byKind.merge(name, statSeconds(stat), Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();   // the process ended meanwhile
        }
        return byKind;
    }

    /** JIT compiler threads ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}, digits masked): the compilation every JVM pays once for the same code. */
    private static boolean isCompiler(String threadKind) {
        return threadKind.startsWith("C# CompilerThre");
    }

    /** utime + stime of a process's or thread's {@code stat} line, in seconds. */
    private static double statSeconds(String stat) {
        // After the name's closing parenthesis, fields[0] is field 3 (state): utime is field 14, stime field 15.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    }

    private static double valkeySeconds(String info) {
        double total = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    /**
     * Script calls a master has answered ({@code INFO commandstats}: {@code evalsha}, {@code eval}
     * and their read-only forms): one per claim, submission or duty run. The commands a script
     * runs inside are counted there under their own names, so they are left out.
     */
    private static long valkeyScriptCalls(String commandStats) {
        long total = 0;
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_eval")) {
                int at = line.indexOf("calls=") + "calls=".length();
                int end = line.indexOf(',', at);
                total += Long.parseLong(line.substring(at, end < 0 ? line.length() : end));
            }
        }
        return total;
    }

    private static double machineBusySeconds() {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < cpu.length; i++) {
                if (i != 4 && i != 5) {   // everything but idle and iowait
                    busy += Long.parseLong(cpu[i]);
                }
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException e) {
            return 0;
        }
    }

    double wallSeconds(CpuSample before) {
        return (nanoTime - before.nanoTime) / 1e9;
    }

    /** Per process of {@code kind}: percent of one core over the interval since {@code before}. */
    Map<Long, Double> percentByPid(CpuSample before, String kind) {
        Map<Long, Double> out = new HashMap<>();
        secondsByPid.forEach((pid, s) -> {
            if (kind.equals(kindByPid.get(pid))) {
                out.put(pid, 100 * (s - before.secondsByPid.getOrDefault(pid, 0.0)) / wallSeconds(before));
            }
        });
        return out;
    }

    /** Per process of {@code kind}: its JIT compiler threads' percent of one core since {@code before}. */
    Map<Long, Double> compilerPercentByPid(CpuSample before, String kind) {
        Map<Long, Double> out = new HashMap<>();
        threadPercentByPid(before, kind).forEach((pid, threads) -> out.put(pid, threads.entrySet().stream()
                .filter(e -> isCompiler(e.getKey())).mapToDouble(Map.Entry::getValue).sum()));
        return out;
    }

    /** Per process of {@code kind}: each kind of thread's percent of one core since {@code before}. */
    Map<Long, Map<String, Double>> threadPercentByPid(CpuSample before, String kind) {
        Map<Long, Map<String, Double>> out = new HashMap<>();
        threadSecondsByPid.forEach((pid, threads) -> {
            if (kind.equals(kindByPid.get(pid))) {
                Map<String, Double> earlier = before.threadSecondsByPid.getOrDefault(pid, Map.of());
                Map<String, Double> percent = new HashMap<>();
                threads.forEach((name, s) -> percent.put(name, 100 * Math.max(0, s - earlier.getOrDefault(name, 0.0)) / wallSeconds(before)));
                out.put(pid, percent);
            }
        });
        return out;
    }

    double percentOfKind(CpuSample before, String kind) {
        return percentByPid(before, kind).values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Valkey masters' own accounting ({@code INFO cpu}), summed: percent of one core. */
    double valkeyPercent(CpuSample before) {
        return valkeyPercentByPort(before).values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Each Valkey master's own accounting ({@code INFO cpu}): percent of one core, by port. */
    Map<Integer, Double> valkeyPercentByPort(CpuSample before) {
        Map<Integer, Double> out = new java.util.TreeMap<>();
        valkeyByPort.forEach((port, s) -> out.put(port, 100 * (s - before.valkeyByPort.getOrDefault(port, 0.0)) / wallSeconds(before)));
        return out;
    }

    /** Script calls the masters answered since {@code before}, summed: one per claim, submission or duty run. */
    long valkeyScriptCalls(CpuSample before) {
        return valkeyScriptCallsByPort.entrySet().stream()
                .mapToLong(e -> e.getValue() - before.valkeyScriptCallsByPort.getOrDefault(e.getKey(), 0L)).sum();
    }

    /** The whole machine busy, percent of one core (2 cores: at most 200). */
    double machinePercent(CpuSample before) {
        return 100 * (machineBusy - before.machineBusy) / wallSeconds(before);
    }
}
