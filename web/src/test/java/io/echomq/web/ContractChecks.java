package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The API's contract held to a deployed WAR: the document the server serves is the WAR's file,
 * and every answer the end-to-end tests saw from an {@code /api} route is one the contract
 * declares for that operation, with a body of the declared fields.
 */
final class ContractChecks {

    /** Payara Micro adds a top-level map of its own to every document it serves; the WAR cannot remove it. */
    private static final String PAYARA_ENDPOINTS = "attribute endpoints is unexpected";
    /**
     * WildFly 39 (SmallRye OpenAPI 4) adds empty {@code info.contact}, {@code info.license} and
     * {@code externalDocs} objects to every document it serves; the WAR declares none of them.
     */
    private static final Set<String> SERVER_ADDITIONS = Set.of(PAYARA_ENDPOINTS,
            "attribute info.license.name is missing", "attribute externalDocs.url is missing");

    private ContractChecks() {
    }

    /** {@code /openapi} on this server has the file's operations, each with the file's statuses. */
    static void servedAsWritten(E2eDeployment app) {
        E2eHttp.Response served = app.anonymous.atServerRoot().send("GET", "/openapi", null, Map.of("Accept", "application/json"));
        assertThat(served.status()).as("GET /openapi on " + app.server.name() + ": " + served.body()).isEqualTo(200);
        ApiContract servedContract = ApiContract.parse(served.body());
        assertThat(servedContract.problems()).as("the document " + app.server.name() + " serves")
                .allSatisfy(problem -> assertThat(problem).isIn(SERVER_ADDITIONS));
        assertThat(relativeToTheContextRoot(servedContract.operations(), app)).as("operations and statuses served by " + app.server.name())
                .isEqualTo(ApiContract.ofTheWar().operations());
    }

    /**
     * The served operations with the paths as the WAR writes them: WildFly 39 serves every path
     * with the context root in front ({@code /echomq/api/about}); the others as written.
     */
    private static Map<ApiContract.Route, Set<String>> relativeToTheContextRoot(Map<ApiContract.Route, Set<String>> served,
                                                                             E2eDeployment app) {
        String contextRoot = java.net.URI.create(app.server.baseUrl()).getPath();
        Map<ApiContract.Route, Set<String>> relative = new java.util.TreeMap<>();
        served.forEach((route, statuses) -> relative.put(new ApiContract.Route(route.method(),
                !contextRoot.isEmpty() && route.path().startsWith(contextRoot + "/") ? route.path().substring(contextRoot.length())
                        : route.path()), statuses));
        return relative;
    }

    /**
     * Every answer the tests got from this deployment's {@code /api} routes: a status the
     * operation declares, in the declared media type, with only declared fields; a request to no
     * operation (a wrong method or address) was refused with 404 or 405.
     */
    static void everyAnswerDeclared(E2eDeployment app) {
        ApiContract contract = ApiContract.ofTheWar();
        List<String> undeclared = new ArrayList<>();
        int checked = 0;
        for (E2eHttp.Answer answer : app.anonymous.answersFrom()) {
            String what = answer.method() + " " + abbreviated(answer.path()) + " -> " + answer.status();
            if (refusedBeforeTheApplication(answer)) {
                continue;
            }
            Optional<ApiContract.Route> route = contract.routeOf(answer.method(), answer.path());
            if (route.isEmpty()) {
                if (answer.status() != 404 && answer.status() != 405) {
                    undeclared.add(what + ": no such operation, yet not refused with 404 or 405");
                }
                continue;
            }
            checked++;
            ApiResponse declared = contract.response(route.get(), Integer.toString(answer.status()));
            if (declared == null) {
                undeclared.add(what + ": " + route.get() + " declares " + contract.operations().get(route.get()));
                continue;
            }
            String mediaType = answer.contentType().split(";")[0].trim();
            MediaType media = declared.getContent() == null ? null : declared.getContent().get(mediaType);
            if (media == null) {
                undeclared.add(what + ": answered " + answer.contentType() + ", declared " + declared.getContent().keySet());
            } else if (mediaType.endsWith("json")) {
                JsonValue body = parse(answer.body());
                if (body == null) {
                    undeclared.add(what + ": the body is not JSON: " + answer.body());
                } else {
                    undeclaredFields(contract, media.getSchema(), body, what, undeclared);
                }
            }
        }
        assertThat(checked).as("answers of " + app.server.name() + " checked against the contract").isPositive();
        assertThat(undeclared).as("answers of " + app.server.name() + " the contract does not declare").isEmpty();
    }

    /**
     * The HTTP server's own refusal of a request it would not parse (a NUL or invalid UTF-8 in
     * the path, an address too long, a body on a DELETE): a 4xx with no body at all, which no
     * route of the application saw. The application answers every error with a problem body.
     */
    private static boolean refusedBeforeTheApplication(E2eHttp.Answer answer) {
        return answer.status() >= 400 && answer.status() < 500 && answer.contentType().isEmpty() && answer.body().isEmpty();
    }

    private static String abbreviated(String path) {
        return path.length() <= 120 ? path : path.substring(0, 100) + "…(" + path.length() + " chars)";
    }

    /** Fields of {@code value} its schema does not declare, reported as {@code what: field}. */
    private static void undeclaredFields(ApiContract contract, Schema<?> declared, JsonValue value, String what, List<String> out) {
        Schema<?> schema = contract.resolved(declared);
        if (schema == null || value == null) {
            return;
        }
        if (value.getValueType() == JsonValue.ValueType.ARRAY && schema.getItems() != null) {
            value.asJsonArray().forEach(item -> undeclaredFields(contract, schema.getItems(), item, what, out));
        } else if (value.getValueType() == JsonValue.ValueType.OBJECT && schema.getProperties() != null) {
            Map<String, Schema> properties = schema.getProperties();
            Set<String> fields = value.asJsonObject().keySet();
            for (String field : fields) {
                if (!properties.containsKey(field)) {
                    out.add(what + ": field '" + field + "' is not in the contract");
                } else {
                    undeclaredFields(contract, properties.get(field), value.asJsonObject().get(field), what + "." + field, out);
                }
            }
        }
    }

    private static JsonValue parse(String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.readValue();
        } catch (RuntimeException notJson) {
            return null;
        }
    }
}
