package io.echomq.web.api;

import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Live queue counts as server-sent events: event {@code stats}, the same JSON as
 * {@code GET /api/queues}, once a second. A stream ends after 10 minutes (browsers reconnect
 * by themselves) and at most 64 are open at once, so idle consoles cannot pile up threads.
 */
@Path("events")
@ApplicationScoped
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
@Tag(name = "queues")
public class EventsResource {

    private static final int MAX_STREAMS = 64;
    private static final long TICKS_PER_STREAM = 600;

    @Inject
    EchoMqEngine engine;

    private final AtomicInteger open = new AtomicInteger();
    private final Jsonb jsonb = JsonbBuilder.create();

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(summary = "Queue counts, pushed once a second (text/event-stream, event 'stats')")
    public void stream(@Context SseEventSink sink, @Context Sse sse) {
        if (open.incrementAndGet() > MAX_STREAMS) {
            open.decrementAndGet();
            sink.send(sse.newEventBuilder().name("error").data("too many open event streams; retry later").build());
            sink.close();
            return;
        }
        AtomicReference<ScheduledFuture<?>> ticking = new AtomicReference<>();
        AtomicInteger ticks = new AtomicInteger();
        Runnable tick = () -> {
            if (sink.isClosed() || ticks.incrementAndGet() > TICKS_PER_STREAM) {
                stop(sink, ticking.get());
                return;
            }
            try {
                List<Views.QueueView> queues = engine.queues().stream()
                        .map(q -> Views.QueueView.of(engine.queue().stats(q))).toList();
                sink.send(sse.newEventBuilder().name("stats").mediaType(MediaType.APPLICATION_JSON_TYPE)
                        .data(jsonb.toJson(queues)).build())
                        .whenComplete((done, failure) -> {
                            if (failure != null) {
                                stop(sink, ticking.get());
                            }
                        });
            } catch (RuntimeException e) {
                stop(sink, ticking.get());
            }
        };
        ticking.set(scheduler().scheduleWithFixedDelay(tick, 0, 1, TimeUnit.SECONDS));
    }

    private void stop(SseEventSink sink, ScheduledFuture<?> ticking) {
        if (ticking != null && ticking.cancel(false)) {
            open.decrementAndGet();
        }
        sink.close();
    }

    private static ManagedScheduledExecutorService scheduler() {
        try {
            return (ManagedScheduledExecutorService) new InitialContext().lookup("java:comp/DefaultManagedScheduledExecutorService");
        } catch (NamingException e) {
            throw new IllegalStateException("the server's managed scheduler is needed for event streams", e);
        }
    }
}
