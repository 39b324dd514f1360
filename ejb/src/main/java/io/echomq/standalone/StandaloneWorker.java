package io.echomq.standalone;

import io.echomq.effect.EffectOutcome;
import io.echomq.engine.EngineThreads;
import io.echomq.engine.HandlerBinding;
import io.echomq.engine.RunningEngine;
import io.echomq.handler.HandlesQueue;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.ClaimedJob;
import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import io.echomq.runtime.EngineConfig;
import io.echomq.worker.WorkerListener;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The engine outside any application server: a plain {@code main} that drains the queues of
 * {@code echomq.queues} with one handler, plus maintenance. Used to prove the guarantee under
 * {@code kill -9} of a whole worker process; it starts the same {@link RunningEngine} the WAR
 * does.
 *
 * <p>Configured exactly like the WAR, by the WAR's keys in their environment form
 * (MicroProfile Config's rule: {@code echomq.worker.lease-ms} is {@code ECHOMQ_WORKER_LEASE_MS};
 * the README lists them), and nothing else; {@code ECHOMQ_QUEUES} names the queues to drain
 * (default: the queue the handler's {@link HandlesQueue} names). The one argument, optional, is
 * the {@link JobHandler} class to run, with a public no-argument constructor (default: the demo
 * ledger handler, on {@code payments}). The standard {@code OTEL_*} settings trace its deliveries
 * and export its messaging metrics, off by default as in the WAR ({@link WorkerTelemetry}). A bad
 * setting stops it with exit status 2 and a message naming the variable. Prints one line per
 * event on stdout:
 * {@code echomq-worker event=<applied|skipped|completed> queue=<q> job=<id> attempt=<n>}.
 */
public final class StandaloneWorker {

    /** Flushed per line, so a process killed with SIGKILL has printed every event it reached. */
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    /**
     * The demo ledger handler, named rather than imported: the engine never depends on the demo,
     * which the resource adapter's copy of the engine does not ship.
     */
    private static final String DEMO_HANDLER = "io.echomq.demo.LedgerChargeHandler";

    private StandaloneWorker() {
    }

    public static void main(String[] args) throws InterruptedException {
        try {
            ConfigReader settings = ConfigReader.environment(System.getenv());
            run(new EngineConfig(settings), handler(args.length > 0 ? args[0] : DEMO_HANDLER), WorkerTelemetry.from(settings));
        } catch (ConfigurationException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
    }

    private static void run(EngineConfig config, JobHandler handler, WorkerTelemetry telemetry) throws InterruptedException {
        List<String> queueNames = config.declaredQueues().isEmpty() ? List.of(queueOf(handler)) : config.declaredQueues();
        List<HandlerBinding> bindings = queueNames.stream().map(q -> new HandlerBinding(q, handler, handler.getClass())).toList();
        String workerId = "standalone-" + ProcessHandle.current().pid();
        EngineThreads threads = EngineThreads.from(EngineThreads.daemonThreads("echomq"));
        RunningEngine engine;
        try {
            engine = RunningEngine.start(config, bindings, threads, workerId, new EventPrinter(), MaintenanceListener.NONE,
                    telemetry.jobs());
        } catch (RuntimeException e) {
            telemetry.flush().run();
            throw e;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Correctness never depends on this hook: a killed worker's leases simply expire.
            engine.close();
            threads.close();
            // After the engine: the spans of the deliveries it finished while stopping go out too.
            telemetry.flush().run();
            stopped.countDown();
        }, "echomq-standalone-stop"));
        OUT.println("echomq-worker event=started worker=" + workerId + " queue=" + String.join(",", queueNames));
        stopped.await();
    }

    /** Without ECHOMQ_QUEUES, the queue the handler's own {@link HandlesQueue} names. */
    private static String queueOf(JobHandler handler) {
        HandlesQueue binding = handler.getClass().getAnnotation(HandlesQueue.class);
        if (binding == null) {
            throw new ConfigurationException("echomq.queues", "is required: " + handler.getClass().getName()
                    + " names no queue with @HandlesQueue");
        }
        return binding.value();
    }

    /** The handler to run: fault tests swap in handlers that stall, fail or halt the JVM. */
    private static JobHandler handler(String className) {
        try {
            return (JobHandler) Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException(className + " is not a JobHandler with a public no-argument constructor", e);
        }
    }

    /** One line per event, for the process-kill proof to count from outside. */
    private static final class EventPrinter implements WorkerListener {

        @Override
        public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
            String event = outcome instanceof EffectOutcome.AlreadyApplied ? "skipped" : "applied";
            OUT.println("echomq-worker event=" + event + " queue=" + job.lease().queue() + " job=" + job.id() + " attempt=" + job.attempt());
        }

        @Override
        public void completed(ClaimedJob job) {
            OUT.println("echomq-worker event=completed queue=" + job.lease().queue() + " lane=" + job.lane() + " job=" + job.id()
                    + " attempt=" + job.attempt());
        }
    }
}
