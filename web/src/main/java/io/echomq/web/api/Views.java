package io.echomq.web.api;

import io.echomq.effect.EffectRecord;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowChild;
import io.echomq.queue.JobEvent;
import io.echomq.queue.JobView;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.Progress;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueStats;
import io.echomq.queue.limits.LimitsInForce;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.shard.ShardView;
import jakarta.json.JsonException;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The API's response bodies, built from the engine's records. */
final class Views {

    private Views() {
    }

    /**
     * A submission's answer: what it did ({@code outcome}: created, duplicate, replaced, throttled)
     * and the job that stands for it. {@code state} is absent only when a throttled submission's
     * window job was deleted since it finished.
     */
    public record JobCreated(String id, String queue, String state, boolean replayed, String outcome) {
        static JobCreated of(Enqueued e) {
            return new JobCreated(e.id(), e.queue(), e.state() == null ? null : e.state().wireName(), e.replayed(),
                    e.outcome().wireName());
        }
    }

    /** A submitted flow's root: {@code replayed} when its idempotency key named an earlier flow. */
    public record FlowCreated(String id, String queue, String state, boolean replayed) {
    }

    /** A flow parent and its children, in the order submitted. */
    public record FlowView(String queue, String id, String state, List<FlowChildView> children, FlowNodeView tree) {
    }

    /**
     * One job of a flow's tree ({@code FlowView.tree}, from the root down): its state now (null
     * once retention removed it, or before it is made, when {@code id} is null too), its place in
     * its parent ({@code index}, {@code onFailure}, the {@code outcome} the parent recorded; null
     * for the root), {@code waitedFor} while its parent waits for it, the {@code result} its
     * handler committed (completed jobs only), and its children ({@code truncated} when the tree
     * reached its size limit here).
     */
    public record FlowNodeView(String queue, String id, String state, Integer index, String onFailure, String outcome,
            boolean waitedFor, JsonValue result, List<FlowNodeView> children, boolean truncated) {
    }

    /**
     * One child: its job once made ({@code id} null before), its state now (null once retention
     * removed it), its policy, and its outcome as the parent recorded it (null until then).
     */
    public record FlowChildView(int index, String queue, String id, String state, String onFailure, String outcome) {
        static FlowChildView of(FlowChild child, String state) {
            return new FlowChildView(child.index(), child.queue(), child.jobId().orElse(null), state, child.onFailure().wireName(),
                    child.outcome().orElse(null));
        }
    }

    /**
     * A queue's counts and limits; {@code lanesHeld} of its lanes with work wait for their lane's
     * cap or rate limit. {@code limitsSource} says which set the limits in force, {@code config}
     * or {@code api} (null while none were ever set): the last change wins, so limits set over
     * the API stand until the configuration's own change. {@code shards} is how many shards the
     * queue is laid out over ({@code echomq.queues.<q>.shards}, 1 unless sharded): its counts are
     * summed over them, and on more than one the lane limits hold per shard for jobs without a lane.
     */
    public record QueueView(String name, boolean paused, Map<String, Long> counts, long total, int lanesWithWork, int lanesHeld,
            LimitsBody limits, String limitsSource, int shards) {
        /** Every queue the deployment serves, one stats call each. */
        static List<QueueView> all(io.echomq.runtime.EchoMqEngine engine) {
            return engine.queues().stream().map(q -> of(engine, q)).toList();
        }

        static QueueView of(io.echomq.runtime.EchoMqEngine engine, String queue) {
            LimitsInForce limits = engine.shards().limitsInForce(queue);
            return of(engine.shards().stats(queue), limits.limits(), limits.source().map(LimitsSource::wireName).orElse(null),
                    engine.shards().shardsOf(queue));
        }

        static QueueView of(QueueStats s, QueueLimits limits, String limitsSource, int shards) {
            return new QueueView(s.queue(), s.paused(), countsOf(s), s.total(), s.lanesWithWork(), s.lanesHeld(), LimitsBody.of(limits),
                    limitsSource, shards);
        }
    }

    /** Jobs per state, by the states' wire names, in the states' order: a queue's counts, or one shard's. */
    private static Map<String, Long> countsOf(QueueStats s) {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("pending", s.pending());
        counts.put("delayed", s.delayed());
        counts.put("active", s.active());
        counts.put("completed", s.completed());
        counts.put("dead", s.dead());
        counts.put("cancelled", s.cancelled());
        counts.put("waiting-children", s.waitingChildren());
        return counts;
    }

    /** A queue's shards, in shard order: one, shard 0, unless the queue is sharded (see {@link ShardRow}). */
    public record QueueShardsView(String queue, List<ShardRow> shards) {
        static QueueShardsView of(String queue, List<ShardView> shards) {
            return new QueueShardsView(queue, shards.stream().map(ShardRow::of).toList());
        }
    }

    /**
     * One shard of a queue (see {@link ShardView}): its hash tag, slot and the master serving it
     * ({@code host:port} as the cluster reports it, null when no master serves the slot), its own
     * counts and paused flag, the limits it enforces (its part of a queue-wide cap or rate), and the
     * version of the settings it holds ({@code settingsVersion}, null on a queue of one shard);
     * {@code settingsBehind} when that version is older than shard 0's, until the
     * {@code shard-settings} maintenance duty copies shard 0's settings to it.
     */
    public record ShardRow(int shard, String tag, int slot, String master, boolean paused, Map<String, Long> counts, long total,
            int lanesWithWork, int lanesHeld, LimitsBody limits, Long settingsVersion, boolean settingsBehind) {
        static ShardRow of(ShardView v) {
            QueueStats s = v.stats();
            return new ShardRow(v.shard(), v.tag(), v.slot(), v.master().orElse(null), s.paused(), countsOf(s), s.total(), s.lanesWithWork(),
                    s.lanesHeld(), LimitsBody.of(v.limits()), v.settingsVersion().isPresent() ? v.settingsVersion().getAsLong() : null,
                    v.settingsBehind());
        }
    }

    public record JobSummary(String id, String state, String lane, int priority, long attempts, long maxAttempts, Instant createdAt,
            Instant finishedAt, String lastError) {
        static JobSummary of(JobView j) {
            return new JobSummary(j.id(), j.state().wireName(), j.lane(), j.priority(), j.attempts(), j.maxAttempts(), j.createdAt(),
                    j.finishedAt().orElse(null), j.lastError().orElse(null));
        }
    }

    public record JobList(String queue, String state, List<JobSummary> jobs, String next) {
    }

    /**
     * How the job's effect stands: applied by attempt k at time t, or not yet (null). When
     * another job submitted with the same idempotency key applied it, {@code appliedByJob} names
     * that job (and k is its attempt); this job's handler does not run.
     */
    public record EffectView(long appliedByAttempt, Instant appliedAt, String appliedByJob) {
        static EffectView of(EffectRecord r, JobView job) {
            return new EffectView(r.attempt(), r.appliedAt(),
                    r.isOf(job.identity()) ? null : r.jobId());
        }
    }

    /** One entry of a job's history (see {@link JobEvent}). */
    public record HistoryEntry(Instant at, String event, Long attempt, String worker, Instant leaseUntil, String detail) {
        static HistoryEntry of(JobEvent e) {
            return new HistoryEntry(e.at(), e.event(), e.attempt().orElse(null), e.worker().orElse(null),
                    e.leaseUntil().orElse(null), e.detail());
        }
    }

    /** One entry of a queue's job-event stream (see {@link QueueEvent}); {@code id} is also the SSE event id. */
    public record StreamedEvent(String id, String jobId, Instant created, String event, String lane, Long attempt, Instant at,
            String detail) {
        static StreamedEvent of(QueueEvent e) {
            return new StreamedEvent(e.id(), e.jobId(), e.created().orElse(null), e.event(), e.lane(), e.attempt().orElse(null),
                    e.at(), e.detail());
        }
    }

    /** The latest progress the job's handler reported, by which attempt and when (server clock). */
    public record ProgressView(int percent, String message, long attempt, Instant at) {
        static ProgressView of(Progress.Reported p) {
            return new ProgressView(p.percent(), p.message(), p.attempt(), p.at());
        }
    }

    /**
     * One job in full. {@code result} is the JSON its handler set, committed with the effect that
     * stands for the job (read from the effect store, never from Valkey); absent until then, or
     * when the handler set none.
     */
    public record JobDetail(String id, String queue, String state, JsonValue payload, String lane, int priority, long attempts,
            long maxAttempts, Instant createdAt, Instant dueAt, Instant claimedAt, Instant leaseUntil, String worker,
            String lastError, Instant finishedAt, String idempotencyKey, String note, EffectView effect,
            List<HistoryEntry> history, ProgressView progress, Instant cancelRequestedAt, String dedupeKey, JsonValue result,
            FlowPlace flow) {
        static JobDetail of(JobView j, Optional<EffectRecord> effect, Optional<JsonValue> result, List<JobEvent> history) {
            return new JobDetail(j.id(), j.queue(), j.state().wireName(), json(j.payload()), j.lane(), j.priority(), j.attempts(),
                    j.maxAttempts(), j.createdAt(), j.dueAt().orElse(null), j.claimedAt().orElse(null),
                    j.leaseUntil().orElse(null), j.worker().orElse(null), j.lastError().orElse(null),
                    j.finishedAt().orElse(null), j.idempotencyKey().orElse(null), j.note().orElse(null),
                    effect.map(r -> EffectView.of(r, j)).orElse(null), history.stream().map(HistoryEntry::of).toList(),
                    j.progress().map(ProgressView::of).orElse(null), j.cancelRequestedAt().orElse(null),
                    j.dedupeKey().orElse(null), result.orElse(null), FlowPlace.of(j));
        }
    }

    /**
     * A job's place in a flow, null for a job in none: its parent (a child's), and how many
     * children it waits or waited for (a parent's; their list is {@code GET /api/flows/{queue}/{id}}).
     */
    public record FlowPlace(FlowParentView parent, int children) {
        static FlowPlace of(JobView j) {
            if (j.flowParent().isEmpty() && j.flowChildren() == 0) {
                return null;
            }
            return new FlowPlace(j.flowParent().map(FlowParentView::of).orElse(null), j.flowChildren());
        }
    }

    public record FlowParentView(String queue, String id, int index, String onFailure) {
        static FlowParentView of(JobView.FlowParent p) {
            return new FlowParentView(p.queue(), p.id(), p.index(), p.onFailure().wireName());
        }
    }

    public record Transition(String id, String queue, String from, String to) {
        static Transition of(ManualTransition.Moved m) {
            return new Transition(m.jobId(), m.queue(), m.from().wireName(), m.to().wireName());
        }

        static Transition of(ManualTransition.Removed r) {
            return new Transition(r.jobId(), r.queue(), r.from().wireName(), "deleted");
        }
    }

    /** An active job's cancel is requested: it ends cancelled if its handler stops, completed if its effect commits. */
    public record CancelRequest(String id, String queue, String state, boolean cancelRequested) {
        static CancelRequest of(ManualTransition.CancelRequested r) {
            return new CancelRequest(r.jobId(), r.queue(), "active", true);
        }
    }

    /** A delayed job's due time after a change: still delayed until {@code dueAt}, or pending now (no dueAt). */
    public record DueTime(String id, String queue, String state, Instant dueAt) {
        static DueTime of(ManualTransition.Rescheduled r) {
            return new DueTime(r.jobId(), r.queue(), "delayed", r.dueAt());
        }
    }

    /** A stored payload as JSON; one that is not JSON (submitted by other clients) as a string. */
    static JsonValue json(String payload) {
        try (JsonReader reader = JsonProcessing.PROVIDER.createReader(new StringReader(payload))) {
            return reader.readValue();
        } catch (JsonException e) {
            return JsonProcessing.PROVIDER.createValue(payload);
        }
    }
}
