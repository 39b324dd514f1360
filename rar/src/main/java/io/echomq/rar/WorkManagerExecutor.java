package io.echomq.rar;

import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The container's {@link WorkManager} as the executor the engine's workers run their runner
 * loops on: each runner is one long-lived {@link Work}. The engine stops its runners itself
 * (it stops claiming and drains), so {@link Work#release()} has nothing more to do; shutting this
 * executor down only refuses new work.
 */
final class WorkManagerExecutor extends AbstractExecutorService {

    private final WorkManager workManager;
    private volatile boolean shutdown;

    WorkManagerExecutor(WorkManager workManager) {
        this.workManager = workManager;
    }

    @Override
    public void execute(Runnable command) {
        if (shutdown) {
            throw new RejectedExecutionException("the EchoMQ adapter is stopping");
        }
        try {
            // scheduleWork: the runner loop must not block the activating thread, and it must start
            // even when the container's pool is busy (startWork would wait for a thread).
            workManager.scheduleWork(new Work() {
                @Override
                public void run() {
                    command.run();
                }

                @Override
                public void release() {
                    // The engine's stop deadline ends the runner; nothing to interrupt here.
                }
            }, WorkManager.INDEFINITE, null, null);
        } catch (WorkException e) {
            throw new RejectedExecutionException("the container's WorkManager refused an EchoMQ runner: " + e.getMessage(), e);
        }
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
