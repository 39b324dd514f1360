package io.echomq.outbox;

import io.echomq.api.FlowRequest;
import io.echomq.api.Job;
import io.echomq.api.JobRequest;
import io.echomq.queue.Flows;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.OutboxDoor;
import io.echomq.queue.Submissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The API's {@link JobRequest} as the engine's {@link NewJob}, checked by the engine's own rules
 * ({@link Submissions#check}, the same code {@code enqueue} runs) before anything is written: a
 * request that passes here is one the queue takes, so an outbox row can never be refused by the
 * relay later (unless another node runs with tighter limits, see {@link OutboxRelay}). Used by the
 * adapter's connection factories and by handlers' follow-ups alike.
 *
 * <p>Field names in messages are the API's: {@code delayMs} for the engine's {@code delay}, and
 * {@code requests[i].…} for a batch's {@code jobs[i].…}.
 */
public final class JobRequests {

    private JobRequests() {
    }

    /** The engine's form of a request: 0 and null mean the queue's default, as the API says. */
    public static NewJob toNewJob(JobRequest request) {
        NewJob job = NewJob.of(request.payload());
        if (request.lane() != null) {
            job = job.inLane(request.lane());
        }
        if (request.idempotencyKey() != null) {
            job = job.withIdempotencyKey(request.idempotencyKey());
        }
        if (request.maxAttempts() != 0) {
            job = job.withMaxAttempts(request.maxAttempts());
        }
        if (request.delayMs() != 0) {
            job = job.delayedBy(Duration.ofMillis(request.delayMs()));
        }
        if (request.priority() != JobRequest.DEFAULT_PRIORITY) {
            job = job.withPriority(request.priority());
        }
        return job;
    }

    /**
     * Checks one request in full.
     *
     * @throws IllegalArgumentException whose message starts with the field at fault
     */
    public static NewJob checked(Submissions submissions, JobRequest request) {
        return checked(request, submissions::check);
    }

    /**
     * As {@link #checked(Submissions, JobRequest)}, by the outbox's key rule: for a request the
     * engine keyed itself (a follow-up, {@link #followUp}).
     */
    public static NewJob checked(OutboxDoor door, JobRequest request) {
        return checked(request, door::check);
    }

    private static NewJob checked(JobRequest request, BiConsumer<String, NewJob> check) {
        if (request == null) {
            throw new IllegalArgumentException("request: is required");
        }
        NewJob job = toNewJob(request);
        try {
            check.accept(request.queue(), job);
        } catch (InvalidRequestException e) {
            throw inApiTerms(e, "");
        }
        return job;
    }

    /**
     * Checks every request of a batch in full, before any is written.
     *
     * @throws IllegalArgumentException whose message starts with the field at fault, e.g. {@code requests[3].lane}
     */
    public static List<NewJob> checkedBatch(Submissions submissions, List<JobRequest> requests) {
        if (requests == null || requests.isEmpty() || requests.size() > Submissions.MAX_BATCH_JOBS) {
            throw new IllegalArgumentException("requests: must hold 1 to " + Submissions.MAX_BATCH_JOBS + " jobs, held "
                    + (requests == null ? 0 : requests.size()));
        }
        List<NewJob> jobs = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            JobRequest request = requests.get(i);
            if (request == null) {
                throw new IllegalArgumentException("requests[" + i + "]: is required");
            }
            NewJob job = toNewJob(request);
            try {
                submissions.check(request.queue(), job);
            } catch (InvalidRequestException e) {
                throw inApiTerms(e, "requests[" + i + "].");
            }
            jobs.add(job);
        }
        return jobs;
    }

    /**
     * Checks a flow in full, every node by the rules of its queue, exactly as {@link Flows#submit}
     * would, before anything is written.
     *
     * @return the engine's form of the flow, its root keyed as the request says
     * @throws IllegalArgumentException whose message starts with the field at fault, e.g. {@code children[2].payload}
     */
    public static NewFlow checkedFlow(Flows flows, FlowRequest flow) {
        if (flow == null) {
            throw new IllegalArgumentException("flow: is required");
        }
        NewFlow checked = OutboxFlows.toNewFlow(flow);
        try {
            flows.check(checked);
        } catch (InvalidRequestException e) {
            throw inApiTerms(e, "");
        }
        return checked;
    }

    /**
     * {@code request} as the follow-up named {@code step} of {@code job}: the same request under
     * the key {@link Job#followUpKey(String)}. The one place both the engine's handlers and the
     * adapter's message-driven beans turn a follow-up into an outbox request, so both key it alike.
     *
     * @throws IllegalArgumentException a bad step, or a request that brings a key of its own (the message starts with the field)
     */
    public static JobRequest followUp(Job job, String step, JobRequest request) {
        String key = job.followUpKey(step);
        if (request == null) {
            throw new IllegalArgumentException("request: is required");
        }
        if (request.idempotencyKey() != null) {
            throw new IllegalArgumentException("idempotencyKey: a follow-up's key is its job's and step's (" + key
                    + "); give the request none");
        }
        return request.withIdempotencyKey(key);
    }

    private static IllegalArgumentException inApiTerms(InvalidRequestException e, String at) {
        String field = "delay".equals(e.field()) || e.field().endsWith(".delay") ? e.field() + "Ms" : e.field();
        String reason = e.getMessage().substring(e.field().length() + 2);
        return new InvalidRequestException(at + field, reason);
    }
}
