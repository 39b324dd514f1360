package io.echomq.web.api;

import io.echomq.queue.ChildFailure;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A flow as submitted: {@code {"queue": "…", "payload": <any JSON>, "lane": "…", "maxAttempts": n,
 * "priority": 0-9, "idempotencyKey": "…", "children": [<flow>, …], "onFailure":
 * "fail-parent"|"run-parent"|"drop"}}. The root names its queue and at least one child; each child
 * is a flow of its own (nested flows), with children or without. {@code onFailure} is a child's
 * (what it does to its parent if it ends dead or cancelled; {@code fail-parent} by default), the
 * idempotency key the root's only (usually given as the {@code Idempotency-Key} header). The
 * OpenAPI schema {@code FlowRequest}; becomes a {@link NewFlow}.
 */
@KnownFieldsOnly
public record FlowBody(String queue, JsonValue payload, String lane, Integer maxAttempts, Integer priority, String idempotencyKey,
        String onFailure, List<FlowBody> children) {

    public FlowBody {
        if (payload == null || payload.getValueType() == JsonValue.ValueType.NULL) {
            throw new InvalidRequestException("payload", "is required (any JSON value)");
        }
        if (queue == null) {
            throw new InvalidRequestException("queue", "is required");
        }
        if (onFailure != null) {
            ChildFailure.fromWireName(onFailure.toLowerCase(Locale.ROOT));
        }
    }

    /** The engine's flow; payloads are kept as the JSON text they arrived as. */
    NewFlow toNewFlow(Optional<String> headerKey) {
        NewJob job = NewJob.of(payload.toString()).inLane(lane);
        if (maxAttempts != null) {
            job = job.withMaxAttempts(maxAttempts);
        }
        if (priority != null) {
            job = job.withPriority(priority);
        }
        Optional<String> key = headerKey.or(() -> Optional.ofNullable(idempotencyKey));
        job = key.map(job::withIdempotencyKey).orElse(job);
        ChildFailure policy = onFailure == null ? ChildFailure.FAIL_PARENT : ChildFailure.fromWireName(onFailure.toLowerCase(Locale.ROOT));
        List<NewFlow> nodes = children == null ? List.of() : children.stream().map(child -> child.toNewFlow(Optional.empty())).toList();
        return new NewFlow(queue, job, policy, nodes);
    }
}
