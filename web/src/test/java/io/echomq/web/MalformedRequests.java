package io.echomq.web;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A generated corpus of requests no correct client sends, each of which the API must refuse with
 * a 4xx and without enqueueing anything: broken JSON (every truncation of valid bodies, a raw
 * control character at every position inside them), wrong types and out-of-range values, huge and deeply
 * nested bodies, odd encodings and content types, header floods, over-long and control-character
 * names in the path, and wrong methods. Every field of every JSON body the API takes (a job, a
 * batch of jobs, a due change, a schedule, a queue's limits, a lab run) is sent a value of the
 * wrong type, a fraction where a whole number belongs, a badly formatted value, an array where an
 * object belongs (and an object where an array does) and null where it is required: those
 * requests expect a 400 naming that {@link Request#field() field}. Deterministic: the same corpus
 * every run.
 */
final class MalformedRequests {

    private static final String JOBS = "/api/queues/payments/jobs";
    private static final String BATCH = "/api/queues/payments/jobs:batch";
    private static final String ONE = "{\"payload\":{\"account\":\"a-1\",\"amountCents\":500}}";
    private static final String FULL = "{\"payload\":{\"account\":\"a-1\",\"amountCents\":500},\"lane\":\"l\",\"delayMs\":0,\"maxAttempts\":3}";
    private static final String TWO = "[" + ONE + "," + FULL + "]";
    /** Addresses an admin sends bodies to; their bodies are refused before anything is looked up. */
    private static final String SCHEDULE = "/api/schedules/reports/refused-by-the-sweep";
    private static final String LIMITS = "/api/queues/payments/limits";
    private static final String DUE = JOBS + "/1/due";
    private static final String LAB = "/api/lab/runs";

    /**
     * One request of the corpus: what it is (for failure messages), how to send it, whether an
     * admin sends it (else a submitter), and the field its 400 must name (null: any 4xx will do).
     */
    record Request(String what, String method, String path, byte[] body, Map<String, String> headers, boolean asAdmin,
            String field) {

        Request(String what, String method, String path, byte[] body, Map<String, String> headers) {
            this(what, method, path, body, headers, false, null);
        }

        E2eHttp.Response sendAs(E2eHttp submitter, E2eHttp admin) {
            E2eHttp client = asAdmin ? admin : submitter;
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
        generated.eachFieldOfEveryBody();
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
        for (String body : List.of("{}", "{\"lane\":\"x\"}", "{\"payload\":null}")) {
            refused("no payload: " + body, "POST", JOBS, body, false, "payload");
        }
        for (String body : List.of("[]", "1", "null", "true", "\"payload\"")) {
            refused("no object: " + body, "POST", JOBS, body, false, "body");
        }
        post("no payload: a broken document", JOBS, "{\"payload\":1,\"payload\"");
        Map<String, List<String>> invalid = new LinkedHashMap<>();
        invalid.put("lane", List.of("\"\"", "\"a b\"", "\"a{b}\"", "\"a:b\"", "\"a/b\"", "\"a\\nb\"", "\"a\\u0000b\"", "\"é\"",
                "\"" + "x".repeat(65) + "\"", "\"" + "x".repeat(10_000) + "\"", "{}", "[]"));
        invalid.put("delayMs", List.of("-1", "true", "\"soon\"", "1e999", "99999999999999999999", "31536000001", "{}", "[]"));
        invalid.put("maxAttempts", List.of("0", "-1", "1001", "true", "\"many\"", "99999999999", "{}", "[]"));
        invalid.forEach((field, values) -> values.forEach(value -> refused(field + "=" + abbreviate(value), "POST", JOBS,
                "{\"payload\":{\"account\":\"a-1\",\"amountCents\":1},\"" + field + "\":" + value + "}", false, field)));
        // Numbers the JSON parser itself refuses to build: answered as unreadable JSON.
        post("maxAttempts of 2,000 digits", JOBS, "{\"payload\":1,\"maxAttempts\":1" + "0".repeat(2_000) + "}");
        post("delayMs with an exponent beyond any number", JOBS, "{\"payload\":1,\"delayMs\":1e9999999999}");
        refused("one bad job in a batch", "POST", BATCH, "[" + ONE + ",{\"payload\":1,\"maxAttempts\":0}]", false, "jobs[1].maxAttempts");
        refused("empty batch", "POST", BATCH, "[]", false, "jobs");
        refused("batch of a non-array", "POST", BATCH, ONE, false, "jobs");
        refused("batch over the limit", "POST", BATCH, "[" + (ONE + ",").repeat(1_000) + ONE + "]", false, "jobs");
    }

    /** The bad values every field of one kind gets, by what each is (the corpus entry says which). */
    private static final Map<String, String> NOT_TEXT = pairs("a number", "5", "true", "true", "an object", "{}",
            "an array", "[]");
    private static final Map<String, String> NOT_WHOLE = pairs("text", "\"high\"", "a numeral in quotes", "\"5\"",
            "true", "true", "a fraction", "2.5", "a small fraction", "1e-3", "beyond 64 bits", "1e999", "an object", "{}",
            "an array", "[]");
    private static final Map<String, String> NOT_INT = pairs("beyond 32 bits", "99999999999");
    private static final Map<String, String> NOT_AN_INSTANT = pairs("a fraction of a ms", "1.5", "a numeral in quotes",
            "\"5\"", "a date without a time", "\"2027-01-01\"", "a time without an offset", "\"2027-01-01T00:00:00\"",
            "month 13", "\"2027-13-01T00:00:00Z\"", "words", "\"tomorrow\"", "true", "true", "an object", "{}",
            "an array", "[]", "beyond 64 bits", "1e999");
    private static final Map<String, String> NOT_AN_OBJECT = pairs("an array", "[]", "a number", "5", "text", "\"x\"",
            "true", "true");

    /** Alternate keys and values, in order: what a bad value is and its JSON, or a field's name and a valid value. */
    private static Map<String, String> pairs(String... keysAndValues) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return values;
    }

    private static Map<String, String> both(Map<String, String> first, Map<String, String> second) {
        Map<String, String> values = new LinkedHashMap<>(first);
        values.putAll(second);
        return values;
    }

    /**
     * The fields of one JSON object the API reads: a valid value of each that the valid object
     * holds, the bad values each field gets, and the fields that may not be null or absent.
     */
    private record ObjectFields(Map<String, String> valid, Map<String, Map<String, String>> bad, List<String> required) {

        /** The valid object with one field's value replaced (null: left out). */
        String with(String field, String value) {
            Map<String, String> fields = new LinkedHashMap<>(valid);
            fields.remove(field);
            if (value != null) {
                fields.put(field, value);
            }
            StringBuilder json = new StringBuilder("{");
            fields.forEach((name, each) -> json.append(json.length() > 1 ? "," : "").append('"').append(name).append("\":").append(each));
            return json.append('}').toString();
        }
    }

    private static ObjectFields jobFields() {
        Map<String, Map<String, String>> bad = new LinkedHashMap<>();
        bad.put("lane", NOT_TEXT);
        bad.put("delayMs", NOT_WHOLE);
        bad.put("runAt", NOT_AN_INSTANT);
        bad.put("maxAttempts", both(NOT_WHOLE, NOT_INT));
        bad.put("idempotencyKey", NOT_TEXT);
        bad.put("priority", both(NOT_WHOLE, NOT_INT));
        bad.put("dedupe", NOT_AN_OBJECT);
        return new ObjectFields(pairs("payload", "{\"account\":\"a-1\",\"amountCents\":1}"), bad, List.of("payload"));
    }

    private void eachFieldOfEveryBody() {
        ObjectFields job = jobFields();
        eachField("job", "POST", JOBS, false, job, "", object -> object);
        eachField("job in a batch", "POST", BATCH, false, job, "jobs[1].", object -> "[" + ONE + "," + object + "]");
        Map<String, Map<String, String>> dedupeBad = new LinkedHashMap<>();
        dedupeBad.put("key", NOT_TEXT);
        dedupeBad.put("windowMs", NOT_WHOLE);
        dedupeBad.put("mode", NOT_TEXT);
        ObjectFields dedupe = new ObjectFields(pairs("key", "\"k\"", "windowMs", "1000", "mode", "\"throttle\""), dedupeBad,
                List.of("key", "windowMs", "mode"));
        eachField("job's dedupe", "POST", JOBS, false, dedupe, "dedupe.", object -> "{\"payload\":1,\"dedupe\":" + object + "}");
        eachField("batch job's dedupe", "POST", BATCH, false, dedupe, "jobs[1].dedupe.",
                object -> "[" + ONE + ",{\"payload\":1,\"dedupe\":" + object + "}]");
        refused("a batch job that is an array", "POST", BATCH, "[" + ONE + ",[]]", false, "jobs[1]");
        refused("a batch job that is a number", "POST", BATCH, "[" + ONE + ",5]", false, "jobs[1]");
        refused("a batch job that is null", "POST", BATCH, "[" + ONE + ",null]", false, "jobs[1]");
        refused("a batch that is text", "POST", BATCH, "\"jobs\"", false, "jobs");

        Map<String, Map<String, String>> scheduleBad = new LinkedHashMap<>();
        for (String text : List.of("queue", "name", "cron", "zone", "lane", "misfire")) {
            scheduleBad.put(text, NOT_TEXT);
        }
        scheduleBad.put("intervalMs", NOT_WHOLE);
        scheduleBad.put("maxAttempts", both(NOT_WHOLE, NOT_INT));
        scheduleBad.put("misfireLimit", both(NOT_WHOLE, NOT_INT));
        scheduleBad.put("misfireGraceMs", NOT_WHOLE);
        eachField("schedule", "PUT", SCHEDULE, true, new ObjectFields(pairs("intervalMs", "60000"), scheduleBad, List.of()), "",
                object -> object);
        for (String body : List.of("[]", "5", "\"x\"")) {
            refused("schedule body " + body, "PUT", SCHEDULE, body, true, "body");
        }

        Map<String, Map<String, String>> limitsBad = new LinkedHashMap<>();
        limitsBad.put("maxActive", both(NOT_WHOLE, NOT_INT));
        limitsBad.put("laneMaxActive", both(NOT_WHOLE, NOT_INT));
        limitsBad.put("rate", NOT_AN_OBJECT);
        limitsBad.put("laneRate", NOT_AN_OBJECT);
        eachField("limits", "PUT", LIMITS, true, new ObjectFields(Map.of(), limitsBad, List.of()), "", object -> object);
        Map<String, Map<String, String>> rateBad = new LinkedHashMap<>();
        rateBad.put("starts", both(NOT_WHOLE, NOT_INT));
        rateBad.put("windowMs", NOT_WHOLE);
        ObjectFields rate = new ObjectFields(pairs("starts", "5", "windowMs", "1000"), rateBad, List.of("starts", "windowMs"));
        for (String which : List.of("rate", "laneRate")) {
            eachField("limits' " + which, "PUT", LIMITS, true, rate, which + ".", object -> "{\"" + which + "\":" + object + "}");
        }
        for (String body : List.of("[]", "5", "\"x\"")) {
            refused("limits body " + body, "PUT", LIMITS, body, true, "body");
        }

        Map<String, Map<String, String>> dueBad = new LinkedHashMap<>();
        dueBad.put("runAt", NOT_AN_INSTANT);
        dueBad.put("delayMs", NOT_WHOLE);
        eachField("due change", "PUT", DUE, true, new ObjectFields(Map.of(), dueBad, List.of()), "", object -> object);
        refused("due change without a time", "PUT", DUE, "{}", true, "runAt");
        refused("due change of nulls", "PUT", DUE, "{\"runAt\":null,\"delayMs\":null}", true, "runAt");
        refused("due change body []", "PUT", DUE, "[]", true, "body");

        Map<String, Map<String, String>> labBad = new LinkedHashMap<>();
        labBad.put("mode", NOT_TEXT);
        labBad.put("crashPoint", NOT_TEXT);
        eachField("lab run", "POST", LAB, true, new ObjectFields(pairs("mode", "\"effect-store\"", "crashPoint", "\"ack\""), labBad,
                List.of()), "", object -> object);
        refused("lab run body []", "POST", LAB, "[]", true, "body");
    }

    /**
     * Each bad value of each field of an object, the other fields valid; then each required field
     * null and absent. {@code at} is the object's place in field names, {@code place} puts the
     * object in the body (a batch's bad job goes second, after a good one).
     */
    private void eachField(String body, String method, String path, boolean asAdmin, ObjectFields fields, String at,
            UnaryOperator<String> place) {
        fields.bad().forEach((field, values) -> values.forEach((what, value) ->
                refused(body + " " + field + ": " + what, method, path, place.apply(fields.with(field, value)), asAdmin, at + field)));
        for (String field : fields.required()) {
            refused(body + " " + field + ": null", method, path, place.apply(fields.with(field, "null")), asAdmin, at + field);
            refused(body + " " + field + ": absent", method, path, place.apply(fields.with(field, null)), asAdmin, at + field);
        }
    }

    private void refused(String what, String method, String path, String body, boolean asAdmin, String field) {
        corpus.add(new Request(what, method, path, body.getBytes(StandardCharsets.UTF_8), Map.of(), asAdmin, field));
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
