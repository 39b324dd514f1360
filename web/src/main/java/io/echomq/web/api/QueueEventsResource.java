package io.echomq.web.api;

import io.echomq.queue.EventFilter;
import io.echomq.queue.EventPage;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.shard.QueueShards;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.Problem;
import io.echomq.web.security.Roles;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * One queue's job-event stream as server-sent events: event {@code job}, its id the stream entry
 * id, its data the entry as JSON ({@link Views.StreamedEvent}). A client resumes after the last
 * id it got ({@code Last-Event-ID}, which EventSource sends on reconnecting, or {@code ?from=}),
 * from the oldest entry kept with {@code from=0}, and from now on without either. Filters:
 * {@code job}, {@code lane}, {@code event} (repeated or comma-separated). On a sharded queue
 * (docs/SHARDING.md, 8) every read takes each shard's entries after its own position, merged by
 * entry id, and an event's id is the resume point of every shard after it (entry ids joined by
 * ','): the same poll, so no added latency beyond {@link #POLL}, at one read per shard.
 *
 * <p>Each open stream is a task on the server's managed scheduler that reads the entries after
 * its position every {@link #POLL} (a non-blocking {@code XRANGE}): no Valkey connection is
 * held between reads, whatever the number of clients. At most
 * {@code echomq.events.max-readers} streams are open at once; one more is answered 503 with
 * Retry-After until one closes.
 */
@Path("queues/{queue}/events")
@ApplicationScoped
@RolesAllowed({Roles.SUBMITTER, Roles.ADMIN})
public class QueueEventsResource {

    private static final Logger LOG = Logger.getLogger(QueueEventsResource.class.getName());
    static final Duration POLL = Duration.ofMillis(250);
    /** A comment this often on a quiet stream, so a client that left is noticed and proxies keep it open. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    private static final int PAGE = 500;
    private static final String RETRY_AFTER_SECONDS = "5";

    @Inject
    EchoMqEngine engine;

    private final Jsonb jsonb = JsonbBuilder.create();
    private final Set<Follower> open = ConcurrentHashMap.newKeySet();
    private Semaphore readers;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void stream(@PathParam("queue") String queue, @QueryParam("from") String from,
            @HeaderParam(HttpHeaders.LAST_EVENT_ID_HEADER) String lastEventId, @QueryParam("job") String job,
            @QueryParam("lane") String lane, @QueryParam("event") List<String> events, @Context SseEventSink sink,
            @Context Sse sse) {
        KnownQueues.require(engine, queue);
        EventFilter filter = EventFilter.of(Optional.ofNullable(job), Optional.ofNullable(lane), eventTypes(events));
        String after = startingPoint(engine.shards(), queue, from, lastEventId);
        if (!readers().tryAcquire()) {
            throw new WebApplicationException(Response.fromResponse(Problem.of(Response.Status.SERVICE_UNAVAILABLE,
                            "this server already serves " + engine.config().eventStreamReaders()
                            + " event streams (echomq.events.max-readers); try again later").toResponse())
                    .header("Retry-After", RETRY_AFTER_SECONDS).build());
        }
        new Follower(queue, filter, after, sink, sse).start();
    }

    /** The header wins over the query: EventSource reconnects to the same URL with the id it last got. */
    static String startingPoint(QueueShards shards, String queue, String from, String lastEventId) {
        if (lastEventId != null && !lastEventId.isEmpty()) {
            return shards.checkedResumePoint(queue, HttpHeaders.LAST_EVENT_ID_HEADER, lastEventId);
        }
        if (from != null) {
            return shards.checkedResumePoint(queue, "from", from);
        }
        return shards.lastEventId(queue);
    }

    /**
     * The queue's matching entries after {@code position}, each with the id a client resumes after
     * it: the entry id on a queue of one shard; on a sharded queue, whose streams cannot be followed
     * as one, a resume point of every shard (entry ids joined by ','), so that a reconnecting
     * EventSource neither misses nor repeats an event of another shard.
     */
    static StreamedPage read(QueueShards shards, String queue, String position, EventFilter filter) {
        EventPage page = shards.events(queue, position, filter, PAGE);
        return new StreamedPage(page.events(), shards.resumePoints(queue, position, page), page.lastRead());
    }

    /** One read of a stream: its events, the id each is sent with, and the position the next read starts after. */
    record StreamedPage(List<QueueEvent> events, List<String> ids, String next) {
    }

    private static Set<String> eventTypes(List<String> events) {
        return events.stream().flatMap(e -> Arrays.stream(e.split(","))).map(String::strip).filter(e -> !e.isEmpty())
                .collect(Collectors.toSet());
    }

    private synchronized Semaphore readers() {
        if (readers == null) {
            readers = new Semaphore(engine.config().eventStreamReaders());
        }
        return readers;
    }

    /** One client's stream: its position, and the scheduled reads that move it. Runs on one scheduler thread at a time. */
    private final class Follower {
        private final String queue;
        private final EventFilter filter;
        private final SseEventSink sink;
        private final Sse sse;
        private String position;
        private long quietSince = System.nanoTime();
        private ScheduledFuture<?> polling;
        private boolean released;
        private boolean greeted;

        Follower(String queue, EventFilter filter, String after, SseEventSink sink, Sse sse) {
            this.queue = queue;
            this.filter = filter;
            this.position = after;
            this.sink = sink;
            this.sse = sse;
        }

        synchronized void start() {
            open.add(this);
            polling = scheduler().scheduleWithFixedDelay(this::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        }

        private synchronized void poll() {
            if (released) {
                return;
            }
            try {
                if (sink.isClosed()) {
                    stop();
                    return;
                }
                if (!greeted) {
                    // Commits the response at once, so a client knows the stream is open before the first event.
                    send(sse.newEventBuilder().comment("job events of queue " + queue).build());
                    greeted = true;
                }
                StreamedPage page = read(engine.shards(), queue, position, filter);
                for (int i = 0; i < page.events().size(); i++) {
                    send(sse.newEventBuilder().id(page.ids().get(i)).name("job").mediaType(MediaType.APPLICATION_JSON_TYPE)
                            .data(jsonb.toJson(Views.StreamedEvent.of(page.events().get(i)))).build());
                }
                position = page.next();
                if (!page.events().isEmpty()) {
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > KEEP_ALIVE.toNanos()) {
                    send(sse.newEventBuilder().comment("keep-alive").build());
                    quietSince = System.nanoTime();
                }
            } catch (ClientGone e) {
                stop();
            } catch (RuntimeException e) {
                // Valkey away for a moment: this stream stays open and reads from its position next time.
                LOG.log(Level.FINE, "EchoMQ event stream of queue {0}: no read this time: {1}", new Object[] {queue, e.getMessage()});
            }
        }

        private void send(OutboundSseEvent event) {
            try {
                sink.send(event).toCompletableFuture().get(KEEP_ALIVE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClientGone();
            } catch (Exception e) {
                throw new ClientGone();
            }
        }

        private void stop() {
            if (released) {
                return;
            }
            released = true;
            open.remove(this);
            polling.cancel(false);
            readers().release();
            try {
                sink.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "EchoMQ event stream of queue {0}: closing: {1}", new Object[] {queue, e.getMessage()});
            }
        }
    }

    /** The client left (or stopped reading): its stream ends. */
    private static final class ClientGone extends RuntimeException {
        ClientGone() {
            super(null, null, false, false);
        }
    }

    /** Undeploy: every stream ends (a client's EventSource reconnects to the next deployment with its last id). */
    @PreDestroy
    void close() {
        for (Follower follower : List.copyOf(open)) {
            synchronized (follower) {
                follower.stop();
            }
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
