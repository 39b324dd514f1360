package io.echomq.queue.internal;

import io.echomq.queue.Enqueued;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A shard of a sharded queue made nothing for some submissions (jobs, or a flow's root) because of a key's home
 * (docs/SHARDING.md, 3.1): the key owned by this shard has its home on another one, or the token
 * the submission claimed the home by was fenced. Only the sharded client sees it: it follows the
 * home and sends those submissions again; a queue of one shard never answers so.
 */
public final class KeyHomeRedirect extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Why one submission was not made.
     *
     * @param kind {@code idem} or {@code dedupe}: which of its keys
     * @param home the key's home shard, or -1 when the claim was fenced
     */
    public record Redirect(String kind, int home) {
        public boolean fenced() {
            return home < 0;
        }
    }

    private final transient List<Enqueued> answers;
    private final transient Map<Integer, Redirect> redirects;

    KeyHomeRedirect(List<Enqueued> answers, Map<Integer, Redirect> redirects) {
        super("submissions " + redirects + " follow their keys' homes", null, false, false);
        this.answers = Collections.unmodifiableList(answers);
        this.redirects = Map.copyOf(redirects);
    }

    /** Every submission's answer, in order; {@code null} for each one redirected. */
    public List<Enqueued> answers() {
        return answers;
    }

    /** The redirected submissions by their index. */
    public Map<Integer, Redirect> redirects() {
        return redirects;
    }
}
