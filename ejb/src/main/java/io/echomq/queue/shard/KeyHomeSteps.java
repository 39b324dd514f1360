package io.echomq.queue.shard;

import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.util.List;

/**
 * The key-home scripts as the submitter ({@link KeyHomes}) and the sweeper ({@link KeyHomeSweeper})
 * both run them (docs/SHARDING.md, 3.1), so that the two give up a key's entry by the same steps.
 * Thread-safe.
 */
final class KeyHomeSteps {

    private final ShardLayout layout;
    private final ScriptRunner scripts;

    KeyHomeSteps(ShardLayout layout, ScriptRunner scripts) {
        this.layout = layout;
        this.scripts = scripts;
    }

    /**
     * Fences {@code key} on {@code home} up to {@code token} when the home holds nothing for it,
     * then deletes the owner's entry {@code home:token}: true when it did; false when the home holds
     * the key's job or window, and nothing changed (the caller decides what the entry becomes).
     *
     * @param mode the dedupe mode by which the home is asked whether it holds the key, '' for idem
     */
    boolean releaseAndForget(int owner, int home, String kind, String key, String token, String mode) {
        List<String> held = run(Script.KEY_HOME_RELEASE, home, kind, List.of(layout.keys(home).prefix(), kind, key, token, mode));
        if (!held.get(0).equals("RELEASED")) {
            return false;
        }
        run(Script.KEY_HOME_CONFIRM, owner, kind, List.of(key, home + ":" + token, "forget", ""));
        return true;
    }

    /** Runs a key-home script on {@code shard}; its reply as text. */
    List<String> run(Script script, int shard, String kind, List<String> args) {
        return Replies.keyHome(scripts.run(script, layout.keys(shard), kind, args), script);
    }
}
