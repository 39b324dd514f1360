package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.core.MediaType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The API's JSON bodies as the resources receive them, read through the resources' own parameters. */
class JsonBodyReaderTest {

    private final JsonBodyReader reader = new JsonBodyReader();

    /** The body parameter of a resource method: the one without a JAX-RS parameter annotation. */
    private static Parameter bodyOf(Class<?> resource, String method) {
        Method m = Arrays.stream(resource.getMethods()).filter(candidate -> candidate.getName().equals(method)).findFirst().orElseThrow();
        return Arrays.stream(m.getParameters())
                .filter(p -> Arrays.stream(p.getAnnotations()).noneMatch(a -> a.annotationType().getPackageName().equals("jakarta.ws.rs")
                        || a.annotationType().getPackageName().equals("jakarta.ws.rs.core")))
                .findFirst().orElseThrow();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object read(Parameter body, String json) throws IOException {
        assertThat(reader.isReadable(body.getType(), body.getParameterizedType(), body.getAnnotations(), MediaType.APPLICATION_JSON_TYPE))
                .as("the API's reader takes " + body.getParameterizedType()).isTrue();
        return reader.readFrom((Class) body.getType(), body.getParameterizedType(), body.getAnnotations(), MediaType.APPLICATION_JSON_TYPE,
                null, new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyResourceBodyIsReadByTheApisReader() throws IOException {
        assertThat(read(bodyOf(JobsResource.class, "submit"), "{\"payload\": 1, \"runAt\": \"2027-01-01T00:00:00Z\"}"))
                .isInstanceOf(JobBody.class);
        assertThat(read(bodyOf(JobsResource.class, "changeDue"), "{\"delayMs\": 5}")).isInstanceOf(DueChange.class);
        assertThat(read(bodyOf(QueuesResource.class, "setLimits"), "{}")).isInstanceOf(LimitsBody.class);
        assertThat(read(bodyOf(QueuesResource.class, "submitBatch"), "[{\"payload\": 1}]")).asList().hasSize(1);
        assertThat(read(bodyOf(SchedulesResource.class, "put"), "{\"intervalMs\": 1000}")).isInstanceOf(ScheduleRequest.class);
        assertThat(read(bodyOf(LabResource.class, "run"), "{\"mode\": \"effect-store\"}")).isInstanceOf(LabResource.LabRequest.class);
    }

    @Test
    void aBatchsJobsAreNamedAsTheEngineNamesThem() {
        Parameter batch = bodyOf(QueuesResource.class, "submitBatch");
        assertThatThrownBy(() -> read(batch, "[{\"payload\": 1}, {\"payload\": 1, \"priority\": \"high\"}]"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].priority"));
        assertThatThrownBy(() -> read(batch, "{\"payload\": 1}"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs"));
    }

    @Test
    void aNumberTheParserWillNotBuildIsUnreadableJson() {
        Parameter job = bodyOf(JobsResource.class, "submit");
        assertThatThrownBy(() -> read(job, "{\"payload\": 1, \"maxAttempts\": 1" + "0".repeat(2_000) + "}"))
                .isInstanceOf(JsonParsingException.class);
        assertThatThrownBy(() -> read(job, "{\"payload\": 1, \"delayMs\": 1e9999999999}")).isInstanceOf(JsonParsingException.class);
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aBodyIsReadAsUtf8Only() throws IOException {
        Parameter job = bodyOf(JobsResource.class, "submit");
        byte[] utf16 = "{\"payload\": 1}".getBytes(StandardCharsets.UTF_16LE);
        assertThatThrownBy(() -> reader.readFrom((Class) job.getType(), job.getParameterizedType(), job.getAnnotations(),
                MediaType.APPLICATION_JSON_TYPE, null, new ByteArrayInputStream(utf16))).isInstanceOf(JsonParsingException.class);
        assertThat(((JobBody) read(job, "{\"payload\": \"été\"}")).payload().toString()).isEqualTo("\"été\"");
    }

    @Test
    void anEmptyBodyIsLeftForTheResourceToAskFor() throws IOException {
        assertThat(read(bodyOf(JobsResource.class, "submit"), "")).isNull();
        assertThat(read(bodyOf(JobsResource.class, "submit"), " \r\n")).isNull();
        assertThat(read(bodyOf(JobsResource.class, "submit"), "null")).isNull();
    }
}
