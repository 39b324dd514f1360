package io.echomq.web.api;

import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.security.Roles;
import jakarta.annotation.PreDestroy;
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
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Live queue counts as server-sent events: event {@code stats}, the same JSON as
 * {@code GET /api/queues}, once a second. One tick reads the counts once and broadcasts them to
 * every open stream, so each console that opens one adds no load on Valkey. The tick starts with
 * the first stream and runs until undeploy; the broadcaster drops streams whose client left.
 */
@Path("events")
@ApplicationScoped
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class EventsResource {

    private static final Logger LOG = Logger.getLogger(EventsResource.class.getName());

    @Inject
    EchoMqEngine engine;

    private final Jsonb jsonb = JsonbBuilder.create();
    private SseBroadcaster broadcaster;
    private ScheduledFuture<?> ticking;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void stream(@Context SseEventSink sink, @Context Sse sse) {
        broadcasterFor(sse).register(sink);
    }

    private synchronized SseBroadcaster broadcasterFor(Sse sse) {
        if (broadcaster == null) {
            broadcaster = sse.newBroadcaster();
            broadcaster.onError((failed, error) -> failed.close());
            ticking = scheduler().scheduleWithFixedDelay(() -> tick(sse), 0, 1, TimeUnit.SECONDS);
        }
        return broadcaster;
    }

    private void tick(Sse sse) {
        try {
            broadcaster.broadcast(sse.newEventBuilder().name("stats").mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(jsonb.toJson(Views.QueueView.all(engine))).build());
        } catch (RuntimeException e) {
            // Valkey away for a moment: skip this second, the streams stay open.
            LOG.log(Level.FINE, "EchoMQ events: no stats this second: {0}", e.getMessage());
        }
    }

    @PreDestroy
    synchronized void close() {
        if (ticking != null) {
            ticking.cancel(false);
        }
        if (broadcaster != null) {
            broadcaster.close();
        }
    }

    private static ManagedScheduledExecutorService scheduler() {
        try {
            return (ManagedScheduledExecutorService) new InitialContext().lookup("java:comp/DefaultManagedScheduledExecutorService");
        } catch (NamingException e) {
            throw new IllegalStateException("the server's managed scheduler is needed for event streams", e);
        }
    }
}
