package io.echomq.web.api;

import jakarta.annotation.Priority;
import jakarta.json.JsonException;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Reads every JSON body the API takes (a request record, or a list of them): JSON-P reads the
 * value, {@link BodyBinding} binds it, so a wrong value is a 400 naming its field on every route
 * and every server, never the binding library's own words. An application's reader is chosen over
 * the server's JSON-B one for these types. An empty body (or JSON null) is null, for the resource
 * to say what it needs. A refusal calls the body {@code body}, or the name the resource's parameter
 * gives it with {@link JsonbProperty} (the batch's array is {@code jobs}, as the engine names it).
 */
@Provider
@Consumes(MediaType.APPLICATION_JSON)
// The server's JSON-B reader takes the same types and media type; being an application provider
// is not always enough for the runtime to prefer this one (a clean-clone CI run on Payara bound
// every body with JSON-B), so the spec's tie-breaker decides: the highest priority wins.
@Priority(1)
public class JsonBodyReader implements MessageBodyReader<Object> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return BodyBinding.binds(genericType);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, String> httpHeaders, InputStream entityStream) throws IOException {
        byte[] body = entityStream.readAllBytes();
        if (WholeJsonBody.isBlank(body)) {
            return null;
        }
        return BodyBinding.bind(read(body), genericType, bodyName(annotations));
    }

    /**
     * The body's value, read as UTF-8, the one encoding JSON has between systems (RFC 8259): left
     * to detect it, the parser would take UTF-16 and UTF-32 too. The parser refuses some values
     * it has walked (a number of more digits, or a larger exponent, than it takes) only when it
     * builds them, with a plain RuntimeException: that is about the body too, and is answered as
     * unreadable JSON.
     */
    private static JsonValue read(byte[] body) {
        try (JsonReader reader = JsonProcessing.PROVIDER.createReader(new InputStreamReader(new ByteArrayInputStream(body),
                StandardCharsets.UTF_8))) {
            return reader.readValue();
        } catch (JsonException refused) {
            throw refused;
        } catch (RuntimeException refused) {
            throw new JsonParsingException(Objects.requireNonNullElse(refused.getMessage(), "the parser refused a value"), refused, null);
        }
    }

    private static String bodyName(Annotation[] annotations) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof JsonbProperty name && !name.value().isEmpty()) {
                return name.value();
            }
        }
        return BodyBinding.BODY;
    }
}
