package io.echomq.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * The soak second by second, so that a minute's p99 can be traced to the seconds it came from:
 * how many effects committed in each second and the worst latency among them, beside what else
 * ran in it: this JVM's garbage collections (their time in the second), PostgreSQL's checkpoints
 * (checkpoints begun, buffers they wrote, and the full-page images the WAL took, which follow
 * each checkpoint and make commits slower), where the machine's CPU went ({@link MachineCpu}: this
 * JVM, PostgreSQL, Valkey, anything else, and time stolen by the hypervisor), the tables
 * (auto)vacuum was working on at its end, and, in a file of their own, the maintenance runs with
 * their start and end. For a second in which fewer than half the offered jobs took effect, it
 * also reports what the engine's threads and PostgreSQL's sessions were doing at its end: a
 * stall names its cause while it happens, which a minute's figures cannot.
 */
final class SoakSeconds implements AutoCloseable {

    /** One second of the run. */
    record Second(int second, long effects, double worstMillis, double gcMillis, Checkpointing checkpointing, MachineCpu.Spent cpu,
            String vacuuming) {
    }

    /** PostgreSQL's checkpoint counters, cumulative as read, or per second as recorded. */
    record Checkpointing(long begun, long buffersWritten, long fullPageImages) {

        static final Checkpointing UNREAD = new Checkpointing(-1, -1, -1);

        Checkpointing since(Checkpointing before) {
            return this == UNREAD || before == UNREAD ? UNREAD
                    : new Checkpointing(begun - before.begun, buffersWritten - before.buffersWritten, fullPageImages - before.fullPageImages);
        }
    }

    /** Enough slow seconds to see a pattern; a long stall would otherwise flood the log. */
    private static final int MAX_STALL_REPORTS = 20;
    /** A second whose worst latency is over this is reported too: a backlog that grows slowly never halves the rate. */
    private static final double SLOW_MILLIS = 1_000;
    private static final int TOP_FRAMES = 2;
    private static final int OUR_FRAMES = 3;

    private final String mode;
    private final double rate;
    private final Jdbi jdbi;
    private final AtomicLong effects = new AtomicLong();
    private final AtomicLong worstNanos = new AtomicLong();
    private final AtomicLong gcNanos = new AtomicLong();
    /**
     * Each line goes to its file as it happens: kept in this JVM until the end, the trace grew
     * the heap it measures (about 23 KB a minute, +0.5 MB in the 30-minute batched soak).
     */
    private final BufferedWriter secondsCsv;
    /** Guarded by itself: maintenance threads write to it, and go on until the engine stops, after {@link #close()}. */
    private final BufferedWriter maintenanceCsv;
    /** Set holding both writers' locks, read holding either. */
    private boolean closed;
    private volatile long startNanos;
    /** Used by the ticker only. */
    private int secondsTicked;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "soak-seconds");
        t.setDaemon(true);
        return t;
    });
    private int stallReports;
    private Checkpointing lastCheckpointing = Checkpointing.UNREAD;
    /** Used by the ticker only (and by {@link #start()} before it). */
    private final MachineCpu cpu = new MachineCpu();

    /** Writes the seconds to {@code secondsCsv} and the maintenance runs to {@code maintenanceCsv}. */
    SoakSeconds(String mode, double rate, Jdbi jdbi, Path secondsCsv, Path maintenanceCsv) throws IOException {
        this.mode = mode;
        this.rate = rate;
        this.jdbi = jdbi;
        this.secondsCsv = Files.newBufferedWriter(secondsCsv);
        this.maintenanceCsv = Files.newBufferedWriter(maintenanceCsv);
        line(this.secondsCsv, "second,effects,worst_ms,gc_ms,checkpoints_begun,checkpoint_buffers_written,wal_full_page_images,"
                + "cpu_bench_ms,cpu_postgres_ms,cpu_valkey_ms,cpu_other_ms,cpu_steal_ms,cpu_iowait_ms,vacuuming");
        line(this.maintenanceCsv, "duty,start_second,end_second,changes");
    }

    /** Appends a line; after {@link #close()}, none. */
    private void line(BufferedWriter csv, String line) {
        synchronized (csv) {
            if (closed) {
                return;
            }
            try {
                csv.write(line);
                csv.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Hands what is buffered to the file, once a second, so the trace can be read while the soak runs. */
    private void flush(BufferedWriter csv) {
        synchronized (csv) {
            if (closed) {
                return;
            }
            try {
                csv.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    void start() {
        startNanos = System.nanoTime();
        lastCheckpointing = checkpointing();
        cpu.sinceLast();
        ticker.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    /** One effect committed, {@code latencyNanos} after its job was sent. */
    void effect(long latencyNanos) {
        effects.incrementAndGet();
        worstNanos.accumulateAndGet(latencyNanos, Math::max);
    }

    /** A garbage collection of this JVM took {@code took}; counted in the second it is reported in. */
    void collection(Duration took) {
        gcNanos.addAndGet(took.toNanos());
    }

    /** A run of a maintenance duty ended now, after {@code took}, having made {@code changes}. */
    void maintenanceRan(String duty, int changes, Duration took) {
        double end = (System.nanoTime() - startNanos) / 1e9;
        line(maintenanceCsv, String.format(Locale.ROOT, "%s,%.3f,%.3f,%d", duty, end - took.toNanos() / 1e9, end, changes));
    }

    private void tick() {
        Checkpointing now = checkpointing();
        Second second = new Second(++secondsTicked, effects.getAndSet(0), worstNanos.getAndSet(0) / 1e6, gcNanos.getAndSet(0) / 1e6,
                now.since(lastCheckpointing), cpu.sinceLast(), vacuuming());
        lastCheckpointing = now;
        MachineCpu.Spent spent = second.cpu();
        line(secondsCsv, String.format(Locale.ROOT, "%d,%d,%.1f,%.1f,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%s", second.second(),
                second.effects(), second.worstMillis(), second.gcMillis(), second.checkpointing().begun(),
                second.checkpointing().buffersWritten(), second.checkpointing().fullPageImages(), spent.benchMillis(),
                spent.postgresMillis(), spent.valkeyMillis(), spent.otherMillis(), spent.stealMillis(), spent.ioWaitMillis(),
                second.vacuuming()));
        flush(secondsCsv);
        flush(maintenanceCsv);
        if ((second.effects() < rate / 2 || second.worstMillis() > SLOW_MILLIS) && stallReports < MAX_STALL_REPORTS) {
            stallReports++;
            System.err.printf(Locale.ROOT, "soak: %s second %d: %d effects against %.0f offered, worst %.0f ms%n%s%n  postgres: %s%n"
                    + "  tables: %s%n", mode, second.second(), second.effects(), rate, second.worstMillis(), engineThreads(),
                    postgresSessions(), tables());
        }
    }

    /** The top frames of every thread that is in EchoMQ's code. */
    private static String engineThreads() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith("io.echomq.")))
                .map(SoakSeconds::describe).collect(Collectors.joining("\n"));
    }

    /** Where the thread is (its top frames), and in which of EchoMQ's code (the innermost frames that are ours). */
    private static String describe(Map.Entry<Thread, StackTraceElement[]> thread) {
        StackTraceElement[] stack = thread.getValue();
        String where = Arrays.stream(stack).limit(TOP_FRAMES).map(StackTraceElement::toString).collect(Collectors.joining(" < "));
        String ours = Arrays.stream(stack).filter(f -> f.getClassName().startsWith("io.echomq.")).limit(OUR_FRAMES)
                .map(StackTraceElement::toString).collect(Collectors.joining(" < "));
        return "  " + thread.getKey().getName() + " " + thread.getKey().getState() + ": " + where + " ... " + ours;
    }

    /** The counters as PostgreSQL 14 to 16 name them; unread (and -1 in the CSV) where they are named otherwise. */
    private Checkpointing checkpointing() {
        try {
            return jdbi.withHandle(h -> h.createQuery("""
                    SELECT b.checkpoints_timed + b.checkpoints_req AS begun, b.buffers_checkpoint AS buffers_written,
                           w.wal_fpi AS full_page_images
                    FROM pg_stat_bgwriter b, pg_stat_wal w""").map((rs, ctx) -> new Checkpointing(rs.getLong("begun"),
                    rs.getLong("buffers_written"), rs.getLong("full_page_images"))).one());
        } catch (RuntimeException e) {
            return Checkpointing.UNREAD;
        }
    }

    /** The tables a (auto)vacuum of this database is working on, space-separated; empty if none. */
    private String vacuuming() {
        try {
            return jdbi.withHandle(h -> h.createQuery("""
                    SELECT coalesce(string_agg(relid::regclass::text, ' '), '') FROM pg_stat_progress_vacuum
                    WHERE datname = current_database()""").mapTo(String.class).one());
        } catch (RuntimeException e) {
            return "?";
        }
    }

    /** What each busy session and background process of the database waits on (idle ones left out), and the start of its statement. */
    private String postgresSessions() {
        try {
            return jdbi.withHandle(h -> h.createQuery("""
                    SELECT coalesce(string_agg(backend_type || ' ' || coalesce(wait_event_type || ':' || wait_event, 'running')
                        || coalesce(' xmin age ' || age(backend_xmin), '') || ' '
                        || regexp_replace(left(coalesce(query, ''), 60), '\\s+', ' ', 'g'), '; '), 'none busy')
                    FROM pg_stat_activity
                    WHERE pid <> pg_backend_pid() AND coalesce(state, '') <> 'idle'
                      AND wait_event_type IS DISTINCT FROM 'Activity'""").mapTo(String.class).one());
        } catch (RuntimeException e) {
            return "not read: " + e;
        }
    }

    /** Live and dead rows of the tables the soak writes: a table whose dead rows pile up slows every statement that reads it. */
    private String tables() {
        try {
            return jdbi.withHandle(h -> h.createQuery("""
                    SELECT string_agg(relname || ' live ' || n_live_tup || ' dead ' || n_dead_tup
                        || ' vacuumed ' || coalesce(to_char(greatest(last_vacuum, last_autovacuum), 'HH24:MI:SS'), 'never'), ', ')
                    FROM pg_stat_user_tables WHERE schemaname = 'echomq'""").mapTo(String.class).one());
        } catch (RuntimeException e) {
            return "not read: " + e;
        }
    }

    /** Stops the ticker and closes both files. */
    @Override
    public void close() throws InterruptedException, IOException {
        ticker.shutdown();
        ticker.awaitTermination(5, TimeUnit.SECONDS);
        synchronized (secondsCsv) {
            synchronized (maintenanceCsv) {
                closed = true;
                maintenanceCsv.close();
                secondsCsv.close();
            }
        }
    }
}
