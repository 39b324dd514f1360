package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.tracing.JobTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The producer's part of the queue: submitting jobs, and checking a submission without sending
 * it. Thread-safe; obtained from {@link QueueClient#submissions()}.
 *
 * <p>A submitter's idempotency key may not start with a prefix the engine keys its own jobs with
 * ({@code schedule:}, {@code flow:}, {@code followup:}, {@code outbox:}): taking one first would
 * make the engine's job a duplicate of the submitter's. The engine's outbox sends follow-ups and
 * key-less rows under its two prefixes through {@link #outboxDoor()}, which no submitter is given.
 */
public final class Submissions {

    private final ScriptRunner scripts;
    private final QueueSettings settings;
    private final JobTelemetry telemetry;
    private final UnaryOperator<String> keyRule;
    private final QueueOutboxDoor outboxDoor;
    /** A queue's keys after checking its name: the queue's own, or one shard's for a shard's client (docs/SHARDING.md). */
    private final Function<String, QueueKeys> keysOf;
    /**
     * Appended to every enqueue: none on a queue of one shard; the id stride N and offset s for
     * shard s of N, so the script mints n × N + s without reading the shard's meta (docs/SHARDING.md 1).
     */
    private final List<String> idLayout;

    Submissions(ScriptRunner scripts, QueueSettings settings, JobTelemetry telemetry, Flows flows,
            Function<String, QueueKeys> keysOf, List<String> idLayout) {
        this.scripts = scripts;
        this.keysOf = keysOf;
        this.idLayout = idLayout;
        this.settings = settings;
        this.telemetry = telemetry;
        this.keyRule = RequestChecks::idempotencyKey;
        this.outboxDoor = new QueueOutboxDoor(new Submissions(this), flows.outboxDoor(), telemetry);
    }

    /** The same submissions under the outbox's key rule: only {@link OutboxDoor} holds one. */
    private Submissions(Submissions submitters) {
        this.scripts = submitters.scripts;
        this.settings = submitters.settings;
        this.telemetry = submitters.telemetry;
        this.keysOf = submitters.keysOf;
        this.idLayout = submitters.idLayout;
        this.keyRule = RequestChecks::outboxIdempotencyKey;
        this.outboxDoor = null;
    }

    /**
     * The engine's outbox's door: submissions that admit the keys the engine mints for the jobs
     * it relays ({@code followup:<job>:<step>}, {@code outbox:<row>}). For the outbox's writers
     * and relay only ({@link io.echomq.outbox}); the HTTP API and every submitter use these
     * submissions, which refuse those keys.
     */
    public QueueOutboxDoor outboxDoor() {
        if (outboxDoor == null) {
            throw new IllegalStateException("the outbox's door has no door of its own");
        }
        return outboxDoor;
    }

    /**
     * Submits one job. With an idempotency key, a lost reply may be answered by sending the
     * submission again (the key makes that safe); without one it is sent once, and a lost reply is
     * a {@link QueueOutcomeUnknownException}: the job may exist. With a {@link Dedupe dedupe key},
     * the answer says whether a job was made, replaced (debounce) or not made (throttle); a
     * debounced submission sent again replaces again, with the same payload.
     */
    public Enqueued enqueue(String queue, NewJob job) {
        return enqueue(queue, job, List.of());
    }

    /**
     * Submits one job on this shard of a sharded queue with the claims its keys' homes were
     * settled by (docs/SHARDING.md, 3.1: {@code own} when this shard owns the key, {@code
     * <owner>:<token>} when it is the key's home by a reservation); for the sharded client only.
     *
     * @throws io.echomq.queue.internal.KeyHomeRedirect when a key's home is on another shard or the claim was fenced: nothing was made
     */
    public Enqueued enqueueClaimed(String queue, NewJob job, String idempotencyKeyClaim, String dedupeKeyClaim) {
        if (idLayout.isEmpty()) {
            throw new IllegalStateException("key claims are for a shard's client; queue '" + queue + "' is not sharded here");
        }
        return enqueue(queue, job, List.of(idempotencyKeyClaim, dedupeKeyClaim));
    }

    /** The N of the ids this client mints ({@code n × N + s}): 1 on a queue of one shard. */
    int idStride() {
        return idLayout.isEmpty() ? 1 : Integer.parseInt(idLayout.get(0));
    }

    private Enqueued enqueue(String queue, NewJob job, List<String> claims) {
        QueueKeys keys = keysOf.apply(queue);
        List<String> args = new ArrayList<>(List.of(keys.prefix()));
        args.addAll(scriptArguments(job, ""));
        return telemetry.creating(queue, 1, creation -> {
            args.add(creation);
            args.addAll(idLayout);
            args.addAll(claims);
            return List.of(Replies.enqueued(queue, submit(Script.ENQUEUE, keys, args, job.idempotencyKey().isPresent())));
        }).get(0);
    }

    /** The most jobs one batch submission may carry. */
    public static final int MAX_BATCH_JOBS = 1_000;

    /**
     * Submits several jobs atomically: every job is validated first, and then all are stored
     * in one script call, or none is. A field error names the job, e.g. {@code jobs[3].lane}.
     * Sent again after a lost reply only when every job carries an idempotency key, as for
     * {@link #enqueue}.
     */
    public List<Enqueued> enqueueBatch(String queue, List<NewJob> jobs) {
        QueueKeys keys = keysOf.apply(queue);
        checkBatchSize(jobs);
        List<String> args = new ArrayList<>(3 + jobs.size() * 10);
        args.add(keys.prefix());
        args.add(Integer.toString(jobs.size()));
        for (int i = 0; i < jobs.size(); i++) {
            args.addAll(scriptArguments(jobs.get(i), "jobs[" + i + "]."));
        }
        boolean keyed = jobs.stream().allMatch(job -> job.idempotencyKey().isPresent());
        return telemetry.creating(queue, jobs.size(), creation -> {
            args.add(creation);
            args.addAll(idLayout);
            return Replies.enqueuedBatch(queue, submit(Script.ENQUEUE_BATCH, keys, args, keyed));
        });
    }

    /**
     * Checks a submission exactly as {@link #enqueue} would, and sends nothing: for callers that
     * store a job first and submit it later (the resource adapter's outbox), so that a stored job
     * is one the queue takes.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void check(String queue, NewJob job) {
        RequestChecks.queueName(queue);
        scriptArguments(job, "");
    }

    /**
     * Checks a batch exactly as {@link #enqueueBatch} would (fields named {@code jobs[i].…}), and
     * sends nothing.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void checkBatch(String queue, List<NewJob> jobs) {
        RequestChecks.queueName(queue);
        checkBatchSize(jobs);
        for (int i = 0; i < jobs.size(); i++) {
            scriptArguments(jobs.get(i), "jobs[" + i + "].");
        }
    }

    private static void checkBatchSize(List<NewJob> jobs) {
        if (jobs == null || jobs.isEmpty() || jobs.size() > MAX_BATCH_JOBS) {
            throw new InvalidRequestException("jobs", "must hold 1 to " + MAX_BATCH_JOBS + " jobs, held "
                    + (jobs == null ? 0 : jobs.size()));
        }
    }

    /** Only a keyed submission is sent again after a lost reply (invariant 10). */
    private Object submit(Script script, QueueKeys keys, List<String> args, boolean keyed) {
        return keyed ? scripts.runKeyedSubmission(script, keys, args) : scripts.run(script, keys, null, args);
    }

    /** A job's ten script arguments, after checking each field; {@code at} prefixes field names. */
    private List<String> scriptArguments(NewJob job, String at) {
        if (job == null) {
            throw new InvalidRequestException(at.isEmpty() ? "job" : at.substring(0, at.length() - 1), "is required");
        }
        try {
            String payload = RequestChecks.payload(job.payload(), settings.maxPayloadBytes());
            String lane = RequestChecks.laneName(job.lane().orElse(NewJob.DEFAULT_LANE));
            Duration delay = RequestChecks.between("delay", job.delay().orElse(Duration.ZERO), Duration.ZERO, settings.maxDelay());
            if (job.runAt().isPresent() && job.delay().isPresent()) {
                throw new InvalidRequestException("runAt", "give a delay or a run-at time, not both");
            }
            String runAt = job.runAt().map(time -> Long.toString(RequestChecks.runAt("runAt", time))).orElse("");
            int maxAttempts = (int) RequestChecks.range("maxAttempts",
                    job.maxAttempts().orElse(settings.defaultMaxAttempts()), 1, settings.maxAttemptsLimit());
            String idempotencyKey = job.idempotencyKey().map(keyRule).orElse("");
            List<String> dedupe = List.of("", "0", "");
            if (job.dedupe().isPresent()) {
                Dedupe d = job.dedupe().get();
                if (d.mode() == null) {
                    throw new InvalidRequestException("dedupe.mode", "is required: debounce or throttle");
                }
                String key = RequestChecks.dedupeKey(d.key());
                Duration window = RequestChecks.dedupeWindow(d.window());
                if (d.mode() == Dedupe.Mode.DEBOUNCE && (job.delay().isPresent() || job.runAt().isPresent())) {
                    throw new InvalidRequestException("dedupe.mode",
                            "debounce delays the job by the window itself: give no delay or run-at time with it");
                }
                dedupe = List.of(key, Long.toString(window.toMillis()), d.mode().wireName());
            }
            int priority = (int) RequestChecks.range("priority", job.priority().orElse(NewJob.DEFAULT_PRIORITY),
                    NewJob.LOWEST_PRIORITY, NewJob.HIGHEST_PRIORITY);
            List<String> args = new ArrayList<>(10);
            args.addAll(List.of(payload, Integer.toString(maxAttempts), Long.toString(delay.toMillis()), lane, idempotencyKey, runAt,
                    Integer.toString(priority)));
            args.addAll(dedupe);
            return args;
        } catch (InvalidRequestException e) {
            if (at.isEmpty()) {
                throw e;
            }
            throw new InvalidRequestException(at + e.field(), e.getMessage().substring(e.field().length() + 2));
        }
    }
}
