package io.echomq.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small JSON-over-HTTP client for end-to-end tests against a deployed WAR.
 *
 * <pre>{@code
 * E2eHttp http = new E2eHttp(payara.baseUrl());
 * E2eHttp.Response about = http.get("/api/about");
 * E2eHttp.Response created = http.as("submitter", password).post("/api/queues/q/jobs", "{\"payload\":...}");
 * E2eHttp.Response again = http.as("submitter", password).post(path, body, Map.of("Idempotency-Key", "order-7"));
 * }</pre>
 *
 * Requests send {@code Accept: application/json}, and {@code Content-Type: application/json} when
 * they carry a body. Any status is returned (a 401 is an answer, not an exception); only a failed
 * connection throws. The first answer of each kind an {@code /api} route gives is kept (see
 * {@link #answersFrom}), for {@link ContractChecks} to hold to the API's contract.
 */
final class E2eHttp {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** One answer per server, method, path and status: the ones the contract is held to. */
    private static final Map<String, Answer> ANSWERS = new ConcurrentHashMap<>();

    private final String baseUrl;
    /** The header that says who calls, sent with every request: Authorization (Basic, Bearer) or a session's Cookie. */
    private final Optional<Map.Entry<String, String>> credentials;

    E2eHttp(String baseUrl) {
        this(baseUrl, Optional.empty());
    }

    private E2eHttp(String baseUrl, Optional<Map.Entry<String, String>> credentials) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.credentials = credentials;
    }

    /** The same client, sending HTTP basic credentials with every request. */
    E2eHttp as(String user, String password) {
        String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new E2eHttp(baseUrl, Optional.of(Map.entry("Authorization", "Basic " + token)));
    }

    /** The same client, sending a bearer token (an identity provider's access token) with every request. */
    E2eHttp withBearer(String accessToken) {
        return new E2eHttp(baseUrl, Optional.of(Map.entry("Authorization", "Bearer " + accessToken)));
    }

    /** The same client in a console session: its cookie ({@code name=value}) sent with every request, as a browser would. */
    E2eHttp inSession(String cookie) {
        return new E2eHttp(baseUrl, Optional.of(Map.entry("Cookie", cookie)));
    }

    /** The same client without credentials. */
    E2eHttp anonymous() {
        return new E2eHttp(baseUrl, Optional.empty());
    }

    /** The same client at the server's root instead of the application's (e.g. for {@code /openapi}). */
    E2eHttp atServerRoot() {
        URI base = URI.create(baseUrl);
        return new E2eHttp(base.getScheme() + "://" + base.getRawAuthority(), credentials);
    }

    /** The answers the {@code /api} routes under this client's base URL gave so far, one of each kind. */
    Collection<Answer> answersFrom() {
        return ANSWERS.values().stream().filter(a -> a.baseUrl().equals(baseUrl)).toList();
    }

    Response get(String path) {
        return send("GET", path, null);
    }

    Response post(String path, String jsonBody) {
        return send("POST", path, jsonBody);
    }

    /** A POST with extra headers (e.g. {@code Idempotency-Key}); they replace the defaults of the same name. */
    Response post(String path, String jsonBody, Map<String, String> headers) {
        return send("POST", path, jsonBody, headers);
    }

    Response put(String path, String jsonBody) {
        return send("PUT", path, jsonBody);
    }

    Response delete(String path) {
        return send("DELETE", path, null);
    }

    /**
     * @param path     relative to the base URL, e.g. {@code /api/about}
     * @param jsonBody the request body, or {@code null} for none
     */
    Response send(String method, String path, String jsonBody) {
        return send(method, path, jsonBody, Map.of());
    }

    /**
     * @param headers sent after the defaults, replacing those of the same name (e.g. another
     *                {@code Content-Type})
     */
    Response send(String method, String path, String body, Map<String, String> headers) {
        return send(method, path, body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8), body != null, headers);
    }

    /** Raw bytes as the body (e.g. invalid UTF-8), sent as {@code application/json} unless {@code headers} say otherwise. */
    Response sendBytes(String method, String path, byte[] body, Map<String, String> headers) {
        return send(method, path, HttpRequest.BodyPublishers.ofByteArray(body), true, headers);
    }

    /** The body with {@code Transfer-Encoding: chunked}, i.e. without a {@code Content-Length} the server could check up front. */
    Response sendChunked(String method, String path, String body) {
        HttpRequest.BodyPublisher unknownLength = HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        return send(method, path, unknownLength, true, Map.of());
    }

    private Response send(String method, String path, HttpRequest.BodyPublisher body, boolean hasBody, Map<String, String> headers) {
        URI uri = URI.create(baseUrl + (path.startsWith("/") ? path : "/" + path));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(TIMEOUT)
                .header("Accept", "application/json")
                .method(method, body);
        if (hasBody) {
            request.header("Content-Type", "application/json");
        }
        credentials.ifPresent(header -> request.header(header.getKey(), header.getValue()));
        headers.forEach(request::setHeader);
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            Response answer = new Response(response.statusCode(), response.headers(), response.body());
            keep(method, uri.getRawPath(), answer);
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + uri + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + uri, e);
        }
    }

    private void keep(String method, String path, Response response) {
        String route = path.substring(URI.create(baseUrl).getRawPath().length());
        if (route.startsWith("/api/")) {
            ANSWERS.putIfAbsent(baseUrl + " " + method + " " + route + " " + response.status(), new Answer(baseUrl, method, route,
                    response.status(), response.header("Content-Type").orElse(""), response.body()));
        }
    }

    /** An answer of an {@code /api} route: {@code path} is relative to the application, without the query. */
    record Answer(String baseUrl, String method, String path, int status, String contentType, String body) {
    }

    /** Status, headers and body of one answer. */
    record Response(int status, HttpHeaders headers, String body) {

        /** The first value of a header (names are case-insensitive). */
        Optional<String> header(String name) {
            return headers.firstValue(name);
        }

        @Override
        public String toString() {
            return "HTTP " + status + " " + body;
        }
    }
}
