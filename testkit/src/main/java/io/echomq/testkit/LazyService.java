package io.echomq.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.Callable;

/**
 * One service for the whole test run: started by the first test that asks for it, shared by all
 * later ones, stopped when the test JVM exits. A failure is remembered too, so that the
 * tenth test fails at once with the same explanation instead of waiting for the same timeout.
 */
final class LazyService<T extends Closeable> implements Closeable {

    private final String name;
    private final Callable<T> starter;
    private T service;
    private RuntimeException failure;
    private boolean closed;

    LazyService(String name, Callable<T> starter) {
        this.name = name;
        this.starter = starter;
    }

    synchronized T get() {
        if (closed) {
            throw new IllegalStateException(name + " was already stopped at the end of the test run");
        }
        if (service != null) {
            return service;
        }
        if (failure != null) {
            throw new ServiceUnavailableException(failure.getMessage(), failure);
        }
        try {
            service = starter.call();
            return service;
        } catch (ServiceUnavailableException e) {
            failure = e;
            throw e;
        } catch (Exception e) {
            failure = new ServiceUnavailableException(name + " could not be started: " + e, e);
            throw failure;
        }
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        if (service != null) {
            service.close();
        }
    }
}
