package io.echomq.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What each test class was handed, so that the class running last can compare. */
final class ServicesSeen {

    static final List<ValkeyService> VALKEY = new CopyOnWriteArrayList<>();
    static final List<PostgresService> POSTGRES = new CopyOnWriteArrayList<>();

    private ServicesSeen() {
    }
}
