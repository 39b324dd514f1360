package io.echomq.web.problem;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueOutcomeUnknownException;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.schedule.ScheduleChangedConcurrentlyException;
import jakarta.json.JsonException;
import jakarta.json.bind.JsonbException;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns every failure into a problem body. The engine's exceptions are the only source of
 * detail text; an unexpected failure is logged in full and answered without internals.
 */
public final class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class.getName());

    /** The engine names some inputs differently from the API's JSON; the API's name wins. */
    private static final Map<String, String> API_FIELD_NAMES = Map.of("delay", "delayMs", "jobId", "id");

    static final int RETRY_AFTER_SECONDS = 1;

    private ProblemMappers() {
    }

    static String apiField(String engineField) {
        for (Map.Entry<String, String> rename : API_FIELD_NAMES.entrySet()) {
            if (engineField.equals(rename.getKey()) || engineField.endsWith("." + rename.getKey())) {
                return engineField.substring(0, engineField.length() - rename.getKey().length()) + rename.getValue();
            }
        }
        return engineField;
    }

    @Provider
    public static final class InvalidRequest implements ExceptionMapper<InvalidRequestException> {
        @Override
        public Response toResponse(InvalidRequestException e) {
            return invalid(e);
        }
    }

    /** A change of a schedule that a later change of the same name overtook on a sharded queue: it changed nothing. */
    @Provider
    public static final class ScheduleChangedConcurrently implements ExceptionMapper<ScheduleChangedConcurrentlyException> {
        @Override
        public Response toResponse(ScheduleChangedConcurrentlyException e) {
            return Problem.of(Response.Status.CONFLICT, e.getMessage()).withField("name").toResponse();
        }
    }

    @Provider
    public static final class Unavailable implements ExceptionMapper<QueueUnavailableException> {
        @Override
        public Response toResponse(QueueUnavailableException e) {
            LOG.log(Level.WARNING, "EchoMQ API: {0}", e.getMessage());
            // Retry-After: an outage or a full Valkey (maxmemory) is usually over within seconds.
            return Response.fromResponse(Problem.of(Response.Status.SERVICE_UNAVAILABLE,
                            e.getMessage() + ". Nothing was accepted; try again later.").toResponse())
                    .header("Retry-After", RETRY_AFTER_SECONDS)
                    .build();
        }
    }

    /**
     * The request was sent to Valkey once and its reply lost: it may or may not have taken effect
     * (an unkeyed submission may have created its job). Not "nothing was accepted", and no
     * Retry-After: resending is the client's decision (safe with an Idempotency-Key).
     */
    @Provider
    public static final class OutcomeUnknown implements ExceptionMapper<QueueOutcomeUnknownException> {
        @Override
        public Response toResponse(QueueOutcomeUnknownException e) {
            LOG.log(Level.WARNING, "EchoMQ API: {0}", e.getMessage());
            return Problem.of(Response.Status.SERVICE_UNAVAILABLE, e.getMessage() + ". The outcome is unknown: check before "
                    + "sending the request again (a submission with an Idempotency-Key can be resent safely).").toResponse();
        }
    }

    @Provider
    public static final class Web implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response original = e.getResponse();
            if (original.hasEntity() && Problem.PROBLEM_JSON.isCompatible(original.getMediaType())) {
                return original;
            }
            int status = original.getStatus();
            String detail = switch (status) {
                case 401 -> "log in: this API uses HTTP Basic authentication";
                case 403 -> "your user lacks the role this needs (submitting and reading: submitter; steering: admin)";
                case 404 -> "there is nothing at this address";
                case 405 -> "this address does not accept that method";
                case 406 -> "this API answers application/json";
                case 415 -> "send the body as application/json";
                default -> String.valueOf(e.getMessage());
            };
            return Problem.of(status, original.getStatusInfo().getReasonPhrase(), detail).toResponse();
        }
    }

    private static Response invalid(InvalidRequestException e) {
        String field = apiField(e.field());
        String detail = field + e.getMessage().substring(e.field().length());
        return Problem.of(Response.Status.BAD_REQUEST, detail).withField(field).toResponse();
    }

    /**
     * A body JSON-B could not read. The API's own reader binds every request body it has now
     * (io.echomq.web.api.JsonBodyReader); a body of another type would come here, answered
     * without the library's words.
     */
    @Provider
    public static final class UnreadableBody implements ExceptionMapper<JsonbException> {
        @Override
        public Response toResponse(JsonbException e) {
            return unreadable(e);
        }
    }

    @Provider
    public static final class Processing implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            return bodyProblem(e).orElseGet(() -> {
                LOG.log(Level.SEVERE, "EchoMQ API: request processing failed", e);
                return Problem.of(Response.Status.BAD_REQUEST, "the request could not be read").toResponse();
            });
        }
    }

    @Provider
    public static final class TooLarge implements ExceptionMapper<BodyTooLargeException> {
        @Override
        public Response toResponse(BodyTooLargeException e) {
            return e.toResponse();
        }
    }

    @Provider
    public static final class Unexpected implements ExceptionMapper<RuntimeException> {
        @Override
        public Response toResponse(RuntimeException e) {
            return bodyProblem(e).orElseGet(() -> {
                LOG.log(Level.SEVERE, "EchoMQ API: unexpected failure", e);
                return Problem.of(Response.Status.INTERNAL_SERVER_ERROR,
                        "an unexpected error occurred; the server log has the details").toResponse();
            });
        }
    }

    /**
     * The runtime wraps a body that could not be read (too large, not JSON, a field of the wrong
     * kind) in its own exceptions, differently on each server; this finds the cause a client
     * should hear about, wherever it is wrapped.
     */
    private static Optional<Response> bodyProblem(Throwable e) {
        BodyTooLargeException tooLarge = cause(e, BodyTooLargeException.class);
        if (tooLarge != null) {
            return Optional.of(tooLarge.toResponse());
        }
        InvalidRequestException invalid = cause(e, InvalidRequestException.class);
        if (invalid != null) {
            return Optional.of(invalid(invalid));
        }
        if (cause(e, JsonbException.class) != null || cause(e, JsonException.class) != null) {
            return Optional.of(unreadable(e));
        }
        return Optional.empty();
    }

    /**
     * Only the JSON parser's own account of where the text breaks is passed on: other messages
     * (a binding library's, a cast's) name Java classes or objects, which tell a client nothing.
     */
    private static Response unreadable(Throwable e) {
        JsonParsingException parsing = cause(e, JsonParsingException.class);
        String detail = "the body is not JSON this address can read: " + (parsing == null || parsing.getMessage() == null
                ? "send one JSON value, UTF-8 encoded" : oneShortLine(parsing.getMessage()));
        return Problem.of(Response.Status.BAD_REQUEST, detail).withField("body").toResponse();
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** Parser messages can quote the input; keep them short and on one line. */
    private static String oneShortLine(String message) {
        String line = message.replaceAll("[\\r\\n\\t]+", " ");
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
