package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API's contract ({@code META-INF/openapi.yaml}) is a document a client generator takes as
 * it is, and it describes the routes the code has: no more, no fewer. What each route answers on
 * a live server is held to it by the end-to-end tests ({@link ApiE2eIT}, {@link PortabilityIT}).
 */
class OpenApiContractTest {

    private static final ApiContract CONTRACT = ApiContract.ofTheWar();
    private static final Set<String> SUCCESS = Set.of("200", "201", "202");

    @Test
    void theDocumentIsValidOpenApiAsAClientGeneratorReadsIt() {
        assertThat(CONTRACT.problems()).isEmpty();
        assertThat(CONTRACT.document().getOpenapi()).startsWith("3.");
    }

    @Test
    void itDescribesExactlyTheRoutesTheCodeServes() {
        assertThat(CONTRACT.operations().keySet()).containsExactlyInAnyOrderElementsOf(jaxRsRoutes());
    }

    @Test
    void everyOperationHasAnIdOfItsOwn() {
        List<String> ids = CONTRACT.operations().keySet().stream().map(r -> CONTRACT.operation(r).getOperationId()).toList();
        assertThat(ids).doesNotContainNull().doesNotHaveDuplicates();
    }

    @Test
    void everyErrorIsAProblemAndEverySuccessHasATypedBody() {
        CONTRACT.operations().forEach((route, statuses) -> {
            assertThat(statuses).as(route + " answers a success").containsAnyElementsOf(SUCCESS).doesNotContain("default");
            for (String status : statuses) {
                ApiResponse response = CONTRACT.response(route, status);
                assertThat(response).as(route + " " + status + " resolves").isNotNull();
                if (status.startsWith("2")) {
                    assertThat(response.getContent()).as(route + " " + status + " has a body").isNotEmpty();
                    response.getContent().forEach((type, media) -> assertTyped(route + " " + status + " " + type, media));
                } else {
                    assertThat(response.getContent()).as(route + " " + status).containsOnlyKeys("application/problem+json");
                    assertThat(response.getContent().get("application/problem+json").getSchema().get$ref())
                            .isEqualTo("#/components/schemas/Problem");
                }
            }
        });
    }

    @Test
    void everyRequestBodyIsTypedAndItsRefusalsAreDeclared() {
        CONTRACT.operations().forEach((route, statuses) -> {
            Operation operation = CONTRACT.operation(route);
            if (operation.getRequestBody() != null) {
                operation.getRequestBody().getContent().forEach((type, media) -> assertTyped(route + " request " + type, media));
                assertThat(statuses).as(route + " takes a body").contains("400", "413", "415");
            }
        });
    }

    @Test
    void protectedOperationsDeclareTheirAuthAnswersAndTheQueueOnesTheirNotFound() {
        CONTRACT.operations().forEach((route, statuses) -> {
            boolean isPublic = CONTRACT.operation(route).getSecurity() != null && CONTRACT.operation(route).getSecurity().isEmpty();
            if (!isPublic) {
                assertThat(statuses).as(route.toString()).contains("401", "403");
            }
            if (route.path().contains("{queue}")) {
                assertThat(statuses).as(route.toString()).contains("404", "503");
            }
        });
    }

    @Test
    void parameterDefaultsHaveTheirParametersTypes() {
        CONTRACT.operations().keySet().forEach(route -> {
            List<Parameter> parameters = new ArrayList<>();
            if (CONTRACT.operation(route).getParameters() != null) {
                parameters.addAll(CONTRACT.operation(route).getParameters());
            }
            for (Parameter parameter : parameters) {
                Schema<?> schema = CONTRACT.resolved(parameter.getSchema());
                if (schema != null && schema.getDefault() != null && "integer".equals(schema.getType())) {
                    assertThat(schema.getDefault()).as(route + " " + parameter.getName()).isInstanceOf(Number.class);
                }
            }
        });
    }

    /** A body's schema names its type or its fields: never a bare {@code object} a generator makes a map of. */
    private static void assertTyped(String what, MediaType media) {
        Schema<?> schema = CONTRACT.resolved(media.getSchema());
        assertThat(schema).as(what + " has a schema").isNotNull();
        if ("array".equals(schema.getType())) {
            schema = CONTRACT.resolved(schema.getItems());
        }
        if ("object".equals(schema.getType())) {
            assertThat(schema.getProperties() != null || schema.getAdditionalProperties() != null)
                    .as(what + " is an object with declared fields").isTrue();
        } else {
            assertThat(schema.getType()).as(what + " has a type").isNotNull();
        }
    }

    /** The routes the JAX-RS classes of the WAR declare, under the application's path. */
    private static Set<ApiContract.Route> jaxRsRoutes() {
        String root = "/" + EchoMqApplication.class.getAnnotation(ApplicationPath.class).value();
        Set<ApiContract.Route> routes = new TreeSet<>();
        for (Class<?> resource : resourceClasses()) {
            String base = join(root, resource.getAnnotation(Path.class).value());
            for (Method method : resource.getMethods()) {
                for (Annotation annotation : method.getAnnotations()) {
                    HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
                    if (http != null) {
                        Path sub = method.getAnnotation(Path.class);
                        routes.add(new ApiContract.Route(http.value(), sub == null ? base : join(base, sub.value())));
                    }
                }
            }
        }
        return routes;
    }

    private static String join(String base, String path) {
        String trimmed = path.replaceAll("^/+|/+$", "");
        return trimmed.isEmpty() ? base : base + "/" + trimmed;
    }

    /** Every class of the WAR's package with a {@code @Path}, found in its compiled classes. */
    private static List<Class<?>> resourceClasses() {
        try {
            java.nio.file.Path folder = Paths.get(EchoMqApplication.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (Stream<java.nio.file.Path> files = Files.walk(folder.resolve("io/echomq/web"))) {
                return files.map(f -> folder.relativize(f).toString())
                        .filter(f -> f.endsWith(".class") && !f.contains("$"))
                        .<Class<?>>map(f -> load(f.substring(0, f.length() - ".class".length()).replace('/', '.')))
                        .filter(c -> c.isAnnotationPresent(Path.class))
                        .toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, OpenApiContractTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
