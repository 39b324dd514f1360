package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The API's contract, {@code META-INF/openapi.yaml} of the WAR, read the way client generators
 * read it (swagger-parser, which openapi-generator uses), with what the tests ask of it: which
 * operation a request is, which statuses it declares, which fields a body may carry.
 */
final class ApiContract {

    static final String RESOURCE = "META-INF/openapi.yaml";

    /** One operation: {@code GET /api/queues/{queue}}. */
    record Route(String method, String path) implements Comparable<Route> {
        @Override
        public int compareTo(Route other) {
            return toString().compareTo(other.toString());
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private final OpenAPI document;
    private final List<String> messages;
    /** Every operation with its declared statuses, in a stable order; read once. */
    private final Map<Route, Set<String>> operations = new TreeMap<>();
    private final Map<Route, Pattern> templates = new TreeMap<>();

    private ApiContract(SwaggerParseResult parsed) {
        this.document = parsed.getOpenAPI();
        this.messages = parsed.getMessages() == null ? List.of() : List.copyOf(parsed.getMessages());
        document.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
            Route route = new Route(method.name(), path);
            operations.put(route, new TreeSet<>(operation.getResponses().keySet()));
            templates.put(route, template(path));
        }));
    }

    /** The WAR's own file, from the class path. */
    static ApiContract ofTheWar() {
        try (InputStream in = ApiContract.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE + " on the class path").isNotNull();
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A document as a server serves it (JSON or YAML). */
    static ApiContract parse(String text) {
        ParseOptions options = new ParseOptions();
        options.setResolve(false);
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(text, null, options);
        assertThat(parsed.getOpenAPI()).as("an OpenAPI 3 document: " + parsed.getMessages()).isNotNull();
        return new ApiContract(parsed);
    }

    /** What the parser found wrong, as openapi-generator's validation would report it. */
    List<String> problems() {
        return messages;
    }

    OpenAPI document() {
        return document;
    }

    /** Every operation with its declared statuses, in a stable order. */
    Map<Route, Set<String>> operations() {
        return Collections.unmodifiableMap(operations);
    }

    /** The operation a concrete request path is, if the contract has it. */
    Optional<Route> routeOf(String method, String concretePath) {
        return templates.entrySet().stream()
                .filter(t -> t.getKey().method().equals(method) && t.getValue().matcher(concretePath).matches())
                .map(Map.Entry::getKey)
                .findFirst();
    }

    Operation operation(Route route) {
        PathItem item = document.getPaths().get(route.path());
        return item.readOperationsMap().get(PathItem.HttpMethod.valueOf(route.method()));
    }

    /** The response a status gets, its {@code $ref} to a shared response followed. */
    ApiResponse response(Route route, String status) {
        ApiResponse response = operation(route).getResponses().get(status);
        if (response != null && response.get$ref() != null) {
            return document.getComponents().getResponses().get(simpleName(response.get$ref()));
        }
        return response;
    }

    /** A schema with its {@code $ref} followed. */
    Schema<?> resolved(Schema<?> schema) {
        if (schema != null && schema.get$ref() != null) {
            return document.getComponents().getSchemas().get(simpleName(schema.get$ref()));
        }
        return schema;
    }

    static String simpleName(String ref) {
        return ref.substring(ref.lastIndexOf('/') + 1);
    }

    /** {@code /api/queues/{queue}} matches {@code /api/queues/payments}; a segment never spans a slash. */
    private static Pattern template(String path) {
        StringBuilder regex = new StringBuilder();
        for (String part : path.split("\\{[^/}]+}", -1)) {
            if (!regex.isEmpty()) {
                regex.append("[^/]+");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString());
    }
}
