package io.echomq.web.console;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The API as the tests use it beside the browser: submit jobs, read them back. Sends the session's
 * CSRF token on POSTs when the server hands one out.
 */
final class ConsoleApi {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final String baseUrl;
    private final String authorization;
    private String csrfToken;

    ConsoleApi(String baseUrl, String user, String password) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.authorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    record Response(int status, String body) {
        JsonObject object() {
            return (JsonObject) json();
        }

        JsonStructure json() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.read();
            }
        }

        @Override
        public String toString() {
            return "HTTP " + status + " " + body;
        }
    }

    Response get(String path) {
        return send("GET", path, null);
    }

    Response post(String path, String json) {
        if (csrfToken == null) {
            Response session = get("/api/session");
            csrfToken = session.status() == 200 ? session.object().getString("csrfToken", "") : "";
        }
        return send("POST", path, json);
    }

    /** A PUT as a script sends it (no browser headers, so no CSRF token needed). */
    Response put(String path, String json) {
        return send("PUT", path, json);
    }

    /** Submits a job and answers its id. */
    String submit(String queue, String payloadJson) {
        return accepted(queue, post("/api/queues/" + queue + "/jobs", "{\"payload\":" + payloadJson + "}")).object().getString("id");
    }

    /** Submits a job under an idempotency key (through the batch form, which carries it in the body) and answers its id. */
    String submit(String queue, String payloadJson, String idempotencyKey) {
        Response created = accepted(queue, post("/api/queues/" + queue + "/jobs:batch",
                "[{\"payload\":" + payloadJson + ",\"idempotencyKey\":\"" + idempotencyKey + "\"}]"));
        return created.json().asJsonArray().getJsonObject(0).getString("id");
    }

    private static Response accepted(String queue, Response submission) {
        if (submission.status() != 201 && submission.status() != 200) {
            throw new AssertionError("submitting to " + queue + " failed: " + submission);
        }
        return submission;
    }

    JsonObject job(String queue, String id) {
        Response job = get("/api/queues/" + queue + "/jobs/" + id);
        if (job.status() != 200) {
            throw new AssertionError("job " + queue + "/" + id + ": " + job);
        }
        return job.object();
    }

    /** Waits until the job is in the state, and answers it. */
    JsonObject awaitState(String queue, String id, String state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonObject job = job(queue, id);
        while (!state.equals(job.getString("state")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            job = job(queue, id);
        }
        if (!state.equals(job.getString("state"))) {
            throw new AssertionError("job " + queue + "/" + id + " never reached " + state + ": " + job);
        }
        return job;
    }

    private Response send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .header("Authorization", authorization)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        if (!"GET".equals(method) && csrfToken != null && !csrfToken.isEmpty()) {
            request.header("X-CSRF-Token", csrfToken);
        }
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
