package io.echomq.web.api;

import jakarta.json.JsonException;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Objects;

/**
 * Refuses a JSON body that holds anything but whitespace after its one value. The JSON-B reader
 * stops at the end of the first value and ignores the rest, so {@code {"payload":1}{"payload":2}}
 * would enqueue one job and answer 201: the second job would be lost without a word. The body is
 * already bounded by {@link BodyLimitFilter}, so reading it whole first is safe.
 */
@Provider
public class WholeJsonBody implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (context.getMediaType() == null || !MediaType.APPLICATION_JSON_TYPE.isCompatible(context.getMediaType())) {
            return context.proceed();
        }
        byte[] body = context.getInputStream().readAllBytes();
        requireNothingAfterTheValue(body);
        context.setInputStream(new ByteArrayInputStream(body));
        return context.proceed();
    }

    /**
     * Walks the body's first value event by event without building it, then asks for more. A
     * broken or unfinished value, or a token after it, throws a {@link JsonException} (a 400
     * naming the body, see ProblemMappers); an empty body is left to the reader, which has its
     * own answer for it. (Not the parser's skipObject: on a body that ends inside the object it
     * never returns.) The parser refuses some bodies with a plain RuntimeException (nesting past
     * its depth limit); it reads bytes in memory, so whatever it throws is about the body, and is
     * passed on as a {@link JsonParsingException} to be answered with a 400 like any other.
     */
    static void requireNothingAfterTheValue(byte[] body) {
        if (isBlank(body)) {
            return;
        }
        try (JsonParser parser = JsonProcessing.PROVIDER.createParser(new ByteArrayInputStream(body))) {
            try {
                walkOneValue(parser);
            } catch (JsonException refused) {
                throw refused;
            } catch (RuntimeException refused) {
                throw new JsonParsingException(Objects.requireNonNullElse(refused.getMessage(), "the parser refused the body"), refused,
                        parser.getLocation());
            }
        }
    }

    /** Consumes one complete value; anything but the end of the input after it is refused. */
    private static void walkOneValue(JsonParser parser) {
        int depth = 0;
        do {
            if (!parser.hasNext()) {
                throw new JsonParsingException("the body ends inside its JSON value", parser.getLocation());
            }
            switch (parser.next()) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                default -> {
                    // A key or a scalar: the depth stays.
                }
            }
        } while (depth > 0);
        if (parser.hasNext()) {
            // Reached only if the parser reports a second value instead of refusing it itself.
            throw new JsonParsingException("the body holds more after its JSON value (at offset "
                    + parser.getLocation().getStreamOffset() + "); send one JSON value per request", parser.getLocation());
        }
    }

    static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }
}
