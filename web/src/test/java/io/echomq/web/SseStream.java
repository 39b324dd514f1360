package io.echomq.web;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server-sent-events client for tests: opens a stream as a user, hands out its events one by
 * one (id, name, data) as the server sends them, and hangs up when closed, as a browser that
 * goes away does.
 */
final class SseStream implements AutoCloseable {

    /** One event: {@code id} is null when the server sent none. */
    record Event(String id, String name, String data) {
        JsonObject json() {
            try (JsonReader reader = Json.createReader(new StringReader(data))) {
                return reader.readObject();
            }
        }
    }

    private final HttpResponse<Stream<String>> response;
    private final Iterator<String> lines;

    private SseStream(HttpResponse<Stream<String>> response) {
        this.response = response;
        this.lines = response.body().iterator();
    }

    /** Opens {@code path} (relative to the base URL) with {@code Accept: text/event-stream} and the extra headers. */
    static SseStream open(String baseUrl, String user, String password, String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "text/event-stream");
        headers.forEach(request::header);
        return new SseStream(HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofLines()));
    }

    int status() {
        return response.statusCode();
    }

    /** The next event, waiting at most {@code wait} for it (comments are skipped); fails when none comes. */
    Event next(Duration wait) throws Exception {
        return CompletableFuture.supplyAsync(this::nextEvent).get(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The next {@code count} events, waiting at most {@code wait} for each. */
    List<Event> next(int count, Duration wait) throws Exception {
        List<Event> events = new ArrayList<>();
        while (events.size() < count) {
            events.add(next(wait));
        }
        return events;
    }

    private Event nextEvent() {
        String id = null;
        String name = null;
        StringBuilder data = null;
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.isEmpty()) {
                if (data != null) {
                    return new Event(id, name, data.toString());
                }
                id = null;
                name = null;
            } else if (line.startsWith("id:")) {
                id = line.substring(3).strip();
            } else if (line.startsWith("event:")) {
                name = line.substring(6).strip();
            } else if (line.startsWith("data:")) {
                data = data == null ? new StringBuilder() : data.append('\n');
                data.append(line.substring(5).strip());
            }
        }
        throw new IllegalStateException("the server ended the stream");
    }

    @Override
    public void close() {
        response.body().close();
    }
}
