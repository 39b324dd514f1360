package io.echomq.queue.internal;

import io.echomq.queue.ChildFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * How one flow child is stored on its parent ({@code spec:<i>} in the parent's flow hash), so
 * that whoever makes the child, the submitter or the flow repair, makes the same job (F4).
 * Encoded as length-prefixed fields ({@code <length>:<text>}), so a payload may hold any
 * character; the child's own children stay encoded, handed on to its flow-add unread.
 */
public record FlowSpec(String queue, String payload, String lane, int priority, int maxAttempts, ChildFailure policy,
        List<String> children) {

    public FlowSpec {
        children = List.copyOf(children);
    }

    public String encode() {
        StringBuilder out = new StringBuilder();
        for (String field : List.of(queue, payload, lane, Integer.toString(priority), Integer.toString(maxAttempts),
                policy.wireName(), Integer.toString(children.size()))) {
            field(out, field);
        }
        children.forEach(child -> field(out, child));
        return out.toString();
    }

    public static FlowSpec decode(String text) {
        Reader in = new Reader(text);
        String queue = in.next();
        String payload = in.next();
        String lane = in.next();
        int priority = Integer.parseInt(in.next());
        int maxAttempts = Integer.parseInt(in.next());
        ChildFailure policy = ChildFailure.fromWireName(in.next());
        int n = Integer.parseInt(in.next());
        List<String> children = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            children.add(in.next());
        }
        return new FlowSpec(queue, payload, lane, priority, maxAttempts, policy, children);
    }

    private static void field(StringBuilder out, String text) {
        out.append(text.length()).append(':').append(text);
    }

    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        String next() {
            int colon = text.indexOf(':', at);
            if (colon < 0) {
                throw new IllegalStateException("flow spec ends early at " + at + " of " + text.length() + " characters");
            }
            int length = Integer.parseInt(text.substring(at, colon));
            at = colon + 1 + length;
            return text.substring(colon + 1, at);
        }
    }
}
