package io.echomq.web.problem;

import jakarta.json.bind.annotation.JsonbPropertyOrder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * An RFC 9457 problem body: what went wrong (title), what to do about it (detail), and for a
 * bad input the field at fault. Every error the API returns is one of these.
 *
 * @param field the request field at fault, or null
 */
@JsonbPropertyOrder({"type", "title", "status", "detail", "field"})
public record Problem(String type, String title, int status, String detail, String field) {

    public static final String MEDIA_TYPE = "application/problem+json";
    public static final MediaType PROBLEM_JSON = MediaType.valueOf(MEDIA_TYPE);

    public static Problem of(Response.Status status, String detail) {
        return new Problem("about:blank", status.getReasonPhrase(), status.getStatusCode(), detail, null);
    }

    public static Problem of(int status, String title, String detail) {
        return new Problem("about:blank", title, status, detail, null);
    }

    public Problem withField(String name) {
        return new Problem(type, title, status, detail, name);
    }

    public Response toResponse() {
        return Response.status(status).type(PROBLEM_JSON).entity(this).build();
    }
}
