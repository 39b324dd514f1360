package io.echomq.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the machine's CPU went since the last reading, from Linux's {@code /proc}: this JVM,
 * PostgreSQL's processes and Valkey's, everything else the machine ran, and the time the
 * hypervisor gave to other machines ({@code steal}). A slow second whose CPU went elsewhere is the
 * machine's noise, not the engine's; on a machine without {@code /proc} every figure is -1.
 *
 * <p>Each process counts its own time only, not that of the children it reaped: those were
 * counted while they lived. A process that ended within the interval leaves its last ticks in
 * "other", which is the machine's busy time less the three owners'.
 */
final class MachineCpu {

    /** Milliseconds of CPU in an interval, summed over the machine's cores. */
    record Spent(double benchMillis, double postgresMillis, double valkeyMillis, double otherMillis, double stealMillis,
            double ioWaitMillis) {

        static final Spent UNREAD = new Spent(-1, -1, -1, -1, -1, -1);
    }

    private enum Owner { BENCH, POSTGRES, VALKEY, OTHER }

    /** Linux's USER_HZ, the unit of every time in {@code /proc}; 100 on x86 and ARM. */
    private static final double MILLIS_PER_TICK = 10;
    private static final Path PROC = Path.of("/proc");
    private static final long SELF = ProcessHandle.current().pid();

    /** Ticks each live process had used at the last reading. */
    private Map<Long, Long> lastTicksByPid = new HashMap<>();
    private long[] lastMachine;

    /** The CPU spent since the previous call (since construction, for the first). */
    Spent sinceLast() {
        try {
            long[] machine = machineTicks();
            Map<Long, Long> ticksByPid = new HashMap<>();
            double[] byOwner = new double[Owner.values().length];
            try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, MachineCpu::isProcess)) {
                for (Path process : processes) {
                    readProcess(process, ticksByPid, byOwner);
                }
            }
            Spent spent = lastMachine == null ? Spent.UNREAD : spent(machine, byOwner);
            lastMachine = machine;
            lastTicksByPid = ticksByPid;
            return spent;
        } catch (IOException | RuntimeException e) {
            return Spent.UNREAD;
        }
    }

    private Spent spent(long[] machine, double[] byOwner) {
        double busy = ticks(machine, lastMachine, 0, 1, 2, 5, 6) * MILLIS_PER_TICK;
        double ours = byOwner[Owner.BENCH.ordinal()] + byOwner[Owner.POSTGRES.ordinal()] + byOwner[Owner.VALKEY.ordinal()];
        return new Spent(byOwner[Owner.BENCH.ordinal()], byOwner[Owner.POSTGRES.ordinal()], byOwner[Owner.VALKEY.ordinal()],
                Math.max(0, busy - ours), ticks(machine, lastMachine, 7) * MILLIS_PER_TICK,
                ticks(machine, lastMachine, 4) * MILLIS_PER_TICK);
    }

    private static boolean isProcess(Path entry) {
        return entry.getFileName().toString().chars().allMatch(Character::isDigit);
    }

    private static long ticks(long[] now, long[] before, int... columns) {
        long sum = 0;
        for (int column : columns) {
            sum += now[column] - before[column];
        }
        return sum;
    }

    /** The machine's line of {@code /proc/stat}: user, nice, system, idle, iowait, irq, softirq, steal. */
    private static long[] machineTicks() throws IOException {
        String[] fields = Files.readAllLines(PROC.resolve("stat")).get(0).trim().split("\\s+");
        long[] ticks = new long[8];
        for (int i = 0; i < ticks.length; i++) {
            ticks[i] = Long.parseLong(fields[i + 1]);
        }
        return ticks;
    }

    /** Adds one process's ticks since the last reading to its owner; a process gone meanwhile is simply not there. */
    private void readProcess(Path process, Map<Long, Long> ticksByPid, double[] byOwner) {
        String stat;
        try {
            stat = Files.readString(process.resolve("stat"));
        } catch (IOException e) {
            return;
        }
        // The command name is in parentheses and may itself hold spaces and parentheses.
        int nameEnd = stat.lastIndexOf(')');
        String name = stat.substring(stat.indexOf('(') + 1, nameEnd);
        String[] after = stat.substring(nameEnd + 2).split(" ");
        // Fields 14 and 15 of proc(5), utime and stime; after[0] is field 3.
        long ticks = Long.parseLong(after[11]) + Long.parseLong(after[12]);
        long pid = Long.parseLong(process.getFileName().toString());
        ticksByPid.put(pid, ticks);
        long since = ticks - lastTicksByPid.getOrDefault(pid, 0L);
        byOwner[owner(pid, name).ordinal()] += since * MILLIS_PER_TICK;
    }

    private static Owner owner(long pid, String name) {
        if (pid == SELF) {
            return Owner.BENCH;
        }
        if (name.startsWith("postgres")) {
            return Owner.POSTGRES;
        }
        return name.startsWith("valkey") || name.startsWith("redis") ? Owner.VALKEY : Owner.OTHER;
    }
}
