package io.echomq.web.problem;

import jakarta.ws.rs.core.Response;

/** A request body over the limit: answered 413 without reading the rest of it. */
public class BodyTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long limit;

    public BodyTooLargeException(long limit) {
        super("request body is larger than " + limit + " bytes", null, false, false);
        this.limit = limit;
    }

    public Response toResponse() {
        return Problem.of(413, "Content Too Large", "the request body is larger than the limit of " + limit
                + " bytes; send smaller payloads or fewer jobs per batch").withField("body").toResponse();
    }
}
