package io.echomq.web;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A generated corpus of requests no correct client sends, each of which the API must refuse with
 * a 4xx and without enqueueing anything: broken JSON (every truncation of valid bodies, a raw
 * control character at every position inside them), wrong types and out-of-range values, huge and deeply
 * nested bodies, odd encodings and content types, header floods, over-long and control-character
 * names in the path, and wrong methods. Deterministic: the same corpus every run.
 */
final class MalformedRequests {

    private static final String JOBS = "/api/queues/payments/jobs";
    private static final String BATCH = "/api/queues/payments/jobs:batch";
    private static final String ONE = "{\"payload\":{\"account\":\"a-1\",\"amountCents\":500}}";
    private static final String FULL = "{\"payload\":{\"account\":\"a-1\",\"amountCents\":500},\"lane\":\"l\",\"delayMs\":0,\"maxAttempts\":3}";
    private static final String TWO = "[" + ONE + "," + FULL + "]";

    /** One request of the corpus: what it is (for failure messages) and how to send it. */
    record Request(String what, String method, String path, byte[] body, Map<String, String> headers) {

        E2eHttp.Response sendAs(E2eHttp client) {
            return body == null ? client.send(method, path, null, headers) : client.sendBytes(method, path, body, headers);
        }

        @Override
        public String toString() {
            return what + " (" + method + " " + (path.length() > 80 ? path.substring(0, 80) + "…" : path) + ")";
        }
    }

    private final List<Request> corpus = new ArrayList<>();

    private MalformedRequests() {
    }

    static List<Request> corpus() {
        MalformedRequests generated = new MalformedRequests();
        generated.brokenJson();
        generated.wrongTypesAndRanges();
        generated.hugeBodies();
        generated.oddEncodings();
        generated.headerFloods();
        generated.oddNames();
        generated.wrongMethods();
        return List.copyOf(generated.corpus);
    }

    private void brokenJson() {
        for (String[] valid : new String[][] {{JOBS, ONE}, {JOBS, FULL}, {BATCH, TWO}}) {
            for (int length = 0; length < valid[1].length(); length++) {
                post("truncated to " + length + " characters", valid[0], valid[1].substring(0, length));
            }
            // Up to and including after the last character: bytes after a complete document are refused too.
            for (int at = 0; at <= valid[1].length(); at++) {
                post("raw control character at " + at, valid[0], valid[1].substring(0, at) + '\u0001' + valid[1].substring(at));
            }
            post("a second document after the first", valid[0], valid[1] + valid[1]);
            post("a stray comma after the document", valid[0], valid[1] + ",");
        }
    }

    private void wrongTypesAndRanges() {
        for (String body : List.of("{}", "[]", "1", "null", "true", "\"payload\"", "{\"lane\":\"x\"}", "{\"payload\":1,\"payload\"")) {
            post("no payload: " + body, JOBS, body);
        }
        Map<String, List<String>> invalid = new LinkedHashMap<>();
        invalid.put("lane", List.of("\"\"", "\"a b\"", "\"a{b}\"", "\"a:b\"", "\"a/b\"", "\"a\\nb\"", "\"a\\u0000b\"", "\"é\"",
                "\"" + "x".repeat(65) + "\"", "\"" + "x".repeat(10_000) + "\"", "{}", "[]"));
        invalid.put("delayMs", List.of("-1", "true", "\"soon\"", "1e999", "99999999999999999999", "31536000001", "{}", "[]"));
        invalid.put("maxAttempts", List.of("0", "-1", "1001", "true", "\"many\"", "99999999999", "{}", "[]"));
        invalid.forEach((field, values) -> values.forEach(value -> post(field + "=" + abbreviate(value), JOBS,
                "{\"payload\":{\"account\":\"a-1\",\"amountCents\":1},\"" + field + "\":" + value + "}")));
        post("one bad job in a batch", BATCH, "[" + ONE + ",{\"payload\":1,\"maxAttempts\":0}]");
        post("empty batch", BATCH, "[]");
        post("batch of a non-array", BATCH, ONE);
        post("batch over the limit", BATCH, "[" + (ONE + ",").repeat(1_000) + ONE + "]");
    }

    private void hugeBodies() {
        post("3 MiB string payload", JOBS, "{\"payload\":\"" + "a".repeat(3 * 1024 * 1024) + "\"}");
        post("payload one byte over 1 MiB", JOBS, "{\"payload\":\"" + "a".repeat(1024 * 1024 + 1) + "\"}");
        post("arrays nested 10,000 deep", JOBS, "{\"payload\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}");
        post("objects nested 10,000 deep", JOBS, "{\"payload\":" + "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000) + "}");
        post("100,000 keys", JOBS, "{\"payload\":{" + "\"k\":1,".repeat(100_000) + "\"k\":1},\"lane\":\"a b\"}");
    }

    private void oddEncodings() {
        bytes("invalid UTF-8 outside strings", JOBS, new byte[] {'{', '"', 'p', '"', ':', (byte) 0xFF, '}'}, Map.of());
        bytes("lone continuation bytes", JOBS, new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0xC3, 0x28}, Map.of());
        bytes("UTF-16LE without a charset", JOBS, ONE.getBytes(StandardCharsets.UTF_16LE), Map.of());
        bytes("UTF-16BE without a charset", JOBS, ONE.getBytes(StandardCharsets.UTF_16BE), Map.of());
        bytes("NUL bytes", JOBS, new byte[64], Map.of());
        for (String type : List.of("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                "application/octet-stream", "application/json; charset=no-such-charset", "*/*", "application/", "json")) {
            bytes("Content-Type " + type, JOBS, "payload=1".getBytes(StandardCharsets.UTF_8), Map.of("Content-Type", type));
        }
    }

    private void headerFloods() {
        String truncated = ONE.substring(0, ONE.length() - 1);
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 500; i++) {
            many.put("X-Flood-" + i, "v".repeat(20));
        }
        bytes("500 headers", JOBS, truncated.getBytes(StandardCharsets.UTF_8), many);
        bytes("one 64 KiB header", JOBS, truncated.getBytes(StandardCharsets.UTF_8), Map.of("X-Huge", "h".repeat(64 * 1024)));
        bytes("Idempotency-Key of 256 characters", JOBS, ONE.getBytes(StandardCharsets.UTF_8), Map.of("Idempotency-Key", "k".repeat(256)));
        bytes("Idempotency-Key of 8,000 characters", JOBS, ONE.getBytes(StandardCharsets.UTF_8), Map.of("Idempotency-Key", "k".repeat(8_000)));
    }

    private void oddNames() {
        for (String queue : List.of("x".repeat(65), "x".repeat(8_000), "%00", "a%0Ab", "a%7Fb", "%C3%A9", "a%20b", "%FF", "a%2Fb",
                "..", "a%7Bb%7D", "payments%00")) {
            post("queue name " + abbreviate(queue), "/api/queues/" + queue + "/jobs", ONE);
            corpus.add(new Request("queue name " + abbreviate(queue), "GET", "/api/queues/" + queue, null, Map.of()));
        }
        for (String id : List.of("%00", "-1", "0x10", "1e3", "99999999999999999999999", "a%0Ab", "x".repeat(5_000))) {
            corpus.add(new Request("job id " + abbreviate(id), "GET", JOBS + "/" + id, null, Map.of()));
        }
        for (String query : List.of("state=sleeping", "state=%00", "limit=-1", "limit=x", "cursor=%FF%FE", "limit=99999999999999")) {
            corpus.add(new Request("query " + query, "GET", JOBS + "?" + query, null, Map.of()));
        }
    }

    private void wrongMethods() {
        for (String method : List.of("PUT", "DELETE", "PATCH")) {
            corpus.add(new Request(method + " on jobs", method, JOBS, ONE.getBytes(StandardCharsets.UTF_8), Map.of()));
            corpus.add(new Request(method + " on a queue", method, "/api/queues/payments", null, Map.of()));
        }
    }

    private void post(String what, String path, String body) {
        bytes(what, path, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    private void bytes(String what, String path, byte[] body, Map<String, String> headers) {
        corpus.add(new Request(what, "POST", path, body, headers));
    }

    private static String abbreviate(String text) {
        return text.length() > 24 ? text.substring(0, 24) + "…(" + text.length() + ")" : text;
    }
}
