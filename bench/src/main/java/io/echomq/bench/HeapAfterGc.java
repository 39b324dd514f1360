package io.echomq.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What this JVM keeps alive: the heap in use just after a full collection it asks for, as the
 * collector itself reports that collection.
 *
 * <p>Reading the heap's usage once {@code System.gc()} returns counts what the running workers
 * allocated in between as well: G1 hands each allocating thread whole regions, so at the batched
 * rate that read moved by several MB (one soak sample 16 % over its level) without anything being
 * kept.
 */
final class HeapAfterGc implements NotificationListener, AutoCloseable {

    /** The cause HotSpot gives a collection that {@code System.gc()} asked for. */
    private static final String REQUESTED = "System.gc()";

    private final List<NotificationEmitter> collectors;
    private final Set<String> heapPools;
    private final BlockingQueue<Long> afterRequestedCollections = new LinkedBlockingQueue<>();
    private final Consumer<Duration> eachCollection;

    private HeapAfterGc(Consumer<Duration> eachCollection) {
        this.eachCollection = eachCollection;
        this.collectors = ManagementFactory.getGarbageCollectorMXBeans().stream().map(NotificationEmitter.class::cast).toList();
        this.heapPools = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    }

    /** Listens to this JVM's collections; {@code eachCollection} is told how long each one took, the requested ones too. */
    static HeapAfterGc listening(Consumer<Duration> eachCollection) {
        HeapAfterGc heap = new HeapAfterGc(eachCollection);
        heap.collectors.forEach(c -> c.addNotificationListener(heap,
                n -> GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()), null));
        return heap;
    }

    /** Collects in full and answers the heap's size right after that collection. */
    long measure() throws InterruptedException {
        afterRequestedCollections.clear();
        System.gc();
        Long bytes = afterRequestedCollections.poll(30, TimeUnit.SECONDS);
        if (bytes == null) {
            throw new IllegalStateException("no collection with cause " + REQUESTED + " reported within 30 s (is -XX:+DisableExplicitGC set?)");
        }
        return bytes;
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        eachCollection.accept(Duration.ofMillis(info.getGcInfo().getDuration()));
        if (REQUESTED.equals(info.getGcCause())) {
            afterRequestedCollections.add(heapUsed(info.getGcInfo().getMemoryUsageAfterGc()));
        }
    }

    private long heapUsed(Map<String, MemoryUsage> byPool) {
        return byPool.entrySet().stream().filter(e -> heapPools.contains(e.getKey())).mapToLong(e -> e.getValue().getUsed()).sum();
    }

    @Override
    public void close() {
        for (NotificationEmitter collector : collectors) {
            try {
                collector.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                // Never added to this collector: nothing to undo.
            }
        }
    }
}
