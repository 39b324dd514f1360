package io.echomq.web.api;

import io.echomq.queue.QueueClient;
import io.echomq.queue.Submissions;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.web.problem.BodyTooLargeException;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses bodies over the limit before they are read: at once when Content-Length says so,
 * else as soon as the stream passes the limit. The limit is the payload limit plus room for
 * the envelope; a batch may carry up to 16 payloads' worth.
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public class BodyLimitFilter implements ContainerRequestFilter {

    /** Room for the JSON envelope around a payload (lane, delay, attempts, escaping). */
    private static final long ENVELOPE_BYTES = 64 * 1024;
    private static final long BATCH_FACTOR = 16;

    @Inject
    EchoMqEngine engine;

    @Override
    public void filter(ContainerRequestContext request) {
        if (!request.hasEntity()) {
            return;
        }
        long payloadLimit = engine.config().queueSettings().maxPayloadBytes();
        boolean batch = request.getUriInfo().getPath().endsWith(":batch");
        long limit = batch ? Math.min(payloadLimit * BATCH_FACTOR, (long) Submissions.MAX_BATCH_JOBS * payloadLimit) + ENVELOPE_BYTES
                : payloadLimit * 2 + ENVELOPE_BYTES;
        if (request.getLength() > limit) {
            throw new BodyTooLargeException(limit);
        }
        request.setEntityStream(new LimitedStream(request.getEntityStream(), limit));
    }

    /** Counts bytes as they are read and stops the read past the limit. */
    private static final class LimitedStream extends FilterInputStream {
        private final long limit;
        private long read;

        LimitedStream(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw new BodyTooLargeException(limit);
            }
        }
    }
}
