package io.echomq.engine;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where the engine's threads come from; the engine owns none. On an application server both
 * are the container's managed executors; elsewhere plain pools the caller shuts down.
 *
 * @param runners runs the workers' runner loops: needs a thread for each runner of every queue
 * @param timers  runs heartbeats, timeouts and maintenance: short tasks, a few threads
 */
public record EngineThreads(ExecutorService runners, ScheduledExecutorService timers) {
}
