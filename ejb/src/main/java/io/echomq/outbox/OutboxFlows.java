package io.echomq.outbox;

import io.echomq.api.FlowRequest;
import io.echomq.api.JobRequest;
import io.echomq.queue.ChildFailure;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

/**
 * A flow as an outbox row holds it (migration V11): the root's fields in the row's columns, its
 * children in the {@code flow} column as a JSON array of nodes
 * {@code {"queue","payload","lane","maxAttempts","priority","onFailure","children"}} (absent lane
 * and a max attempts of 0 mean the queue's default). The one writer and reader of that column.
 */
public final class OutboxFlows {

    private static final JsonProvider JSON = JsonProvider.provider();

    private OutboxFlows() {
    }

    /** The API's flow as the engine's: the root keeps the request's key; children carry none. */
    static NewFlow toNewFlow(FlowRequest flow) {
        return new NewFlow(flow.job().queue(), JobRequests.toNewJob(flow.job()), failure(flow), flow.children().stream()
                .map(OutboxFlows::toNewFlow).toList());
    }

    private static ChildFailure failure(FlowRequest flow) {
        return ChildFailure.valueOf(flow.onFailure().name());
    }

    /** {@code flow}'s children as the {@code flow} column holds them. */
    public static String encodeChildren(FlowRequest flow) {
        return children(flow).build().toString();
    }

    private static JsonArrayBuilder children(FlowRequest flow) {
        JsonArrayBuilder children = JSON.createArrayBuilder();
        for (FlowRequest child : flow.children()) {
            JobRequest job = child.job();
            JsonObjectBuilder node = JSON.createObjectBuilder().add("queue", job.queue()).add("payload", job.payload())
                    .add("maxAttempts", job.maxAttempts()).add("priority", job.priority()).add("onFailure", child.onFailure().name())
                    .add("children", children(child));
            if (job.lane() != null) {
                node.add("lane", job.lane());
            }
            children.add(node);
        }
        return children;
    }

    /** The flow a row holds: its root job (already keyed) on {@code queue}, and the children of its {@code flow} column. */
    static NewFlow decode(String queue, NewJob root, String children) {
        try (JsonReader reader = JSON.createReader(new StringReader(children))) {
            return new NewFlow(queue, root, null, nodes(reader.readArray()));
        }
    }

    private static List<NewFlow> nodes(JsonArray array) {
        List<NewFlow> nodes = new ArrayList<>(array.size());
        for (JsonValue value : array) {
            JsonObject node = value.asJsonObject();
            JobRequest job = new JobRequest(node.getString("queue"), node.getString("payload"), node.getString("lane", null), null,
                    node.getInt("maxAttempts"), 0, node.getInt("priority"));
            nodes.add(new NewFlow(job.queue(), JobRequests.toNewJob(job), ChildFailure.valueOf(node.getString("onFailure")),
                    nodes(node.getJsonArray("children"))));
        }
        return nodes;
    }
}
