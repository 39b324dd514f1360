package io.echomq.web.api;

import io.echomq.queue.QueueClient;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.Problem;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

/** Decides whether a path's queue is one this deployment serves: 400 for a bad name, 404 for an unknown one. */
final class KnownQueues {

    private KnownQueues() {
    }

    static String require(EchoMqEngine engine, String queue) {
        QueueClient.checkQueueName(queue);
        if (!engine.knows(queue)) {
            throw new WebApplicationException(Problem.of(Response.Status.NOT_FOUND, "unknown queue '" + queue
                    + "': this deployment serves " + engine.queues()
                    + " (bind a handler with @HandlesQueue, or declare it in echomq.queues)").withField("queue").toResponse());
        }
        return queue;
    }
}
