package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.internal.KeyHomeRedirect;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.HashSet;

/**
 * The key-home protocol of a sharded queue (docs/SHARDING.md, 3.1): a keyed submission's job is
 * made only on its keys' home, so no two shards ever hold a job (or window) of one key. A key
 * owned by the job's lane shard goes straight to {@code enqueue} there, which checks the owner's
 * home entry itself; any other key is first reserved on its owner (H1), then the job is made on
 * the lane shard by the reservation's token (H2), then the reservation is confirmed (H3). When the
 * key's home is another shard that holds nothing for it any more, that home is fenced first (H4)
 * and the key re-homed. A flow's root with its own idempotency key takes the same steps, made by
 * {@code flow-add} instead of {@code enqueue} ({@link Maker}). Thread-safe.
 */
final class KeyHomes {

    /** The steps of the protocol, for {@link StepWatch}. */
    enum Step { RESERVE, RELEASE, CREATE, CONFIRM }

    /** Called before each step; a test stops the client there by throwing, as a crash would. */
    @FunctionalInterface
    interface StepWatch {
        StepWatch NONE = (step, shard) -> { };

        void before(Step step, int shard);
    }

    /** Rounds of follow-the-home before a submission gives up: each needs another submission to move the key meanwhile. */
    private static final int MAX_ROUNDS = 8;

    private final ShardLayout layout;
    private final KeyHomeSteps steps;
    private final List<QueueClient> shards;
    private final StepWatch watch;

    KeyHomes(ShardLayout layout, ScriptRunner scripts, List<QueueClient> shards, StepWatch watch) {
        this.layout = layout;
        this.steps = new KeyHomeSteps(layout, scripts);
        this.shards = shards;
        this.watch = watch;
    }

    /** A key of a submission: {@code kind} {@code idem} or {@code dedupe}; mode is the dedupe mode's wire name, '' for idem. */
    record Key(String kind, String key, String mode) {
    }

    /** A reservation this submission holds or uses: confirmed once its job is made. */
    private record Reservation(Key key, int owner, int home, String token) {
        String claim() {
            return owner + ":" + token;
        }
    }

    /** How a key was settled: a claim to make the job by, or the reply (DUPLICATE, THROTTLED) the submission is answered by instead. */
    private record Settled(String claim, Optional<Reservation> toConfirm, Optional<List<String>> answer) {
    }

    /**
     * What a submission makes once its keys' homes are settled: a job ({@code enqueue}), or a flow's
     * root ({@code flow-add}, docs/SHARDING.md 3.4), each on the submission's lane shard.
     */
    interface Maker<T> {

        /**
         * Makes the submission on its lane shard under its keys' claims ({@value KeyHomes#OWN} for a key that shard owns, else
         * {@code <owner>:<token>}).
         *
         * @throws KeyHomeRedirect when the shard made nothing: a key it owns has its home elsewhere, or a claim was fenced
         */
        T make(String idempotencyKeyClaim, String dedupeKeyClaim);

        /** The submission's answer from a key's owner or home on another shard: its DUPLICATE or THROTTLED reply. */
        T answered(List<String> reply);
    }

    /** The claim of a key the lane shard owns: that shard reads the key's home entry itself. */
    static final String OWN = "own";

    /**
     * Submits {@code job}, checked already, on {@code laneShard} after settling its keys' homes, with today's answers;
     * a key whose home is on another shard answers from there (DUPLICATE, THROTTLED).
     *
     * @throws KeyInFlightException when a key's home is reserved elsewhere by a submission not made yet
     * @throws InvalidRequestException naming {@code dedupe.key} for a debounced submission whose window's
     *         job waits on another shard
     */
    Enqueued enqueue(String queue, NewJob job, int laneShard) {
        return enqueue(queue, job, laneShard, ShardDoor.SUBMITTER);
    }

    /** As {@link #enqueue(String, NewJob, int)}, the job made on its home through {@code door}. */
    Enqueued enqueue(String queue, NewJob job, int laneShard, ShardDoor door) {
        return submit(queue, keysOf(job), laneShard, new Maker<>() {
            @Override
            public Enqueued make(String idempotencyKeyClaim, String dedupeKeyClaim) {
                return door.enqueueClaimed(shards.get(laneShard), queue, job, idempotencyKeyClaim, dedupeKeyClaim);
            }

            @Override
            public Enqueued answered(List<String> reply) {
                return Replies.enqueued(queue, reply);
            }
        });
    }

    /**
     * Makes a submission with {@code keys} (its idempotency key first) on {@code laneShard} through
     * {@code maker}, after settling each key's home: a key the lane shard owns goes straight to the
     * maker (the shard checks its home entry); any other is reserved on its owner (H1), made by the
     * reservation's token (H2) and confirmed (H3); a key whose home holds its job or window on
     * another shard is answered from there.
     *
     * @throws KeyInFlightException when a key's home is reserved elsewhere by a submission not made yet
     * @throws InvalidRequestException naming {@code dedupe.key} for a debounced submission whose window's
     *         job waits on another shard
     */
    <T> T submit(String queue, List<Key> keys, int laneShard, Maker<T> maker) {
        Set<String> followHome = new HashSet<>();
        for (int round = 0; round < MAX_ROUNDS; round++) {
            String[] claims = {OWN, OWN};
            List<Reservation> toConfirm = new ArrayList<>(2);
            Optional<List<String>> answered = Optional.empty();
            for (Key key : keys) {
                int owner = layout.ownerOfKey(key.key());
                if (owner == laneShard && !followHome.contains(key.kind())) {
                    continue;
                }
                Settled settled;
                try {
                    settled = settle(queue, key, owner, laneShard);
                } catch (KeyInFlightException | InvalidRequestException e) {
                    toConfirm.forEach(this::abandon);
                    throw e;
                }
                if (settled.answer().isPresent()) {
                    answered = settled.answer();
                    break;
                }
                claims[key.kind().equals("idem") ? 0 : 1] = settled.claim();
                settled.toConfirm().ifPresent(toConfirm::add);
            }
            if (answered.isPresent()) {
                toConfirm.forEach(this::abandon);
                return maker.answered(answered.get());
            }
            watch.before(Step.CREATE, laneShard);
            try {
                T made = maker.make(claims[0], claims[1]);
                toConfirm.forEach(this::confirm);
                return made;
            } catch (KeyHomeRedirect redirect) {
                KeyHomeRedirect.Redirect why = redirect.redirects().get(0);
                if (!why.fenced()) {
                    followHome.add(why.kind());
                }
            }
        }
        throw new QueueUnavailableException("queue '" + queue + "': the keys of the submission moved home " + MAX_ROUNDS
                + " times while it was sent; nothing was made, send it again", null);
    }

    /** Settles one key's home for a job on {@code laneShard}: reserves it there, or answers from its home elsewhere. */
    private Settled settle(String queue, Key key, int owner, int laneShard) {
        String replace = "";
        for (int round = 0; round < MAX_ROUNDS; round++) {
            watch.before(Step.RESERVE, owner);
            List<String> r = steps.run(Script.KEY_HOME_RESERVE, owner, key.kind(), List.of(layout.keys(owner).prefix(), key.kind(),
                    key.key(), Integer.toString(laneShard), replace, key.mode()));
            switch (r.get(0)) {
                case "RESERVED":
                    Reservation made = new Reservation(key, owner, laneShard, r.get(2));
                    return new Settled(made.claim(), Optional.of(made), Optional.empty());
                case "DUPLICATE", "THROTTLED":
                    return answer(r);
                case "WAITING":
                    throw debounceElsewhere(queue, key, r.get(2), owner);
                case "HOME":
                    int home = Integer.parseInt(r.get(1));
                    Reservation entry = new Reservation(key, owner, home, r.get(2));
                    boolean reserved = r.get(3).equals("reserved");
                    if (home == laneShard) {
                        return new Settled(entry.claim(), reserved ? Optional.of(entry) : Optional.empty(), Optional.empty());
                    }
                    // A reservation in flight is only looked at; a confirmed home holding nothing is fenced, then replaced.
                    watch.before(Step.RELEASE, home);
                    List<String> held = steps.run(Script.KEY_HOME_RELEASE, home, key.kind(), List.of(layout.keys(home).prefix(),
                            key.kind(), key.key(), reserved ? "" : entry.token(), key.mode()));
                    switch (held.get(0)) {
                        case "DUPLICATE", "THROTTLED":
                            if (reserved) {
                                confirm(entry);
                            }
                            return answer(held);
                        case "WAITING":
                            throw debounceElsewhere(queue, key, held.get(2), home);
                        case "EMPTY":
                            throw new KeyInFlightException("queue '" + queue + "': the " + describe(key) + " has its home on shard " + home
                                    + " by a submission whose job is not made yet, and this submission's lane is on shard " + laneShard
                                    + "; nothing was made: send it again later (the key makes that safe)");
                        case "RELEASED":
                            replace = home + ":" + entry.token();
                            break;
                        default:
                            throw new IllegalStateException("unexpected reply from key-home-release: " + held);
                    }
                    break;
                default:
                    throw new IllegalStateException("unexpected reply from key-home-reserve: " + r);
            }
        }
        throw new QueueUnavailableException("queue '" + queue + "': the " + describe(key) + " moved home " + MAX_ROUNDS
                + " times while this submission was sent; nothing was made, send it again", null);
    }

    /** H3: the reservation's job is made. */
    private void confirm(Reservation reservation) {
        watch.before(Step.CONFIRM, reservation.owner());
        steps.run(Script.KEY_HOME_CONFIRM, reservation.owner(), reservation.key().kind(),
                List.of(reservation.key().key(), reservation.home() + ":" + reservation.token(), "confirm", ""));
    }

    /**
     * Gives up a reservation whose job this submission will not make (another key answered, or was
     * in flight or refused), so that the key is not left in flight until the sweeper's grace: its
     * home is fenced, then the entry deleted; if a submission sharing the reservation made the job
     * meanwhile, it is confirmed instead.
     */
    private void abandon(Reservation reservation) {
        Key key = reservation.key();
        if (!steps.releaseAndForget(reservation.owner(), reservation.home(), key.kind(), key.key(), reservation.token(), key.mode())) {
            steps.run(Script.KEY_HOME_CONFIRM, reservation.owner(), key.kind(),
                    List.of(key.key(), reservation.home() + ":" + reservation.token(), "confirm", ""));
        }
    }

    /** A DUPLICATE or THROTTLED reply of a key's owner or home, as the answer to the submission. */
    private static Settled answer(List<String> reply) {
        return new Settled("", Optional.empty(), Optional.of(reply));
    }

    private InvalidRequestException debounceElsewhere(String queue, Key key, String lane, int shard) {
        return new InvalidRequestException("dedupe.key", "'" + key.key() + "' of queue '" + queue + "': its waiting job is in lane "
                + lane + " on shard " + shard + "; on a sharded queue a debounced submission must keep to lanes of that shard");
    }

    private static String describe(Key key) {
        return (key.kind().equals("idem") ? "idempotency key '" : "dedupe key '") + key.key() + "'";
    }

    /** The keys of a job, its idempotency key first (it is judged first, as on one shard). */
    static List<Key> keysOf(NewJob job) {
        List<Key> keys = new ArrayList<>(2);
        job.idempotencyKey().ifPresent(k -> keys.add(new Key("idem", k, "")));
        job.dedupe().ifPresent(d -> keys.add(new Key("dedupe", d.key(), d.mode() == null ? "" : d.mode().wireName())));
        return keys;
    }

    /** Whether every key of {@code job} is owned by {@code shard}, so its submission needs no reservation. */
    boolean ownsEveryKey(NewJob job, int shard) {
        return keysOf(job).stream().allMatch(key -> layout.ownerOfKey(key.key()) == shard);
    }
}
