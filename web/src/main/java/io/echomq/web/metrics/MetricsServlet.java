package io.echomq.web.metrics;

import io.echomq.queue.outbox.OutboxDeadRows;
import io.echomq.queue.outbox.OutboxGauge;
import io.echomq.runtime.EchoMqEngine;
import jakarta.inject.Inject;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;

/**
 * {@code GET <context root>/metrics}: the {@link QueueMetrics} in the Prometheus text format,
 * public like a server's own metrics endpoint (they say how busy queues are, nothing secret).
 * A servlet, not a JAX-RS resource, so that it sits beside {@code /api}, not under it.
 */
@WebServlet(urlPatterns = "/metrics")
public class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    @Inject
    transient QueueMetrics metrics;

    @Inject
    transient EchoMqEngine engine;

    @Inject
    transient QueueGauges queues;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType(PROMETHEUS_TEXT);
        response.setHeader("Cache-Control", "no-store");
        readOutboxes();
        queues.read();
        response.getWriter().write(metrics.scrape());
    }

    /** The outbox gauges, read from Valkey at each scrape; without Valkey the other metrics still answer. */
    private void readOutboxes() {
        try {
            List<OutboxGauge> outboxes = engine.queue().outboxAdmin().gauges();
            metrics.outboxes(outboxes);
            for (OutboxGauge outbox : outboxes) {
                metrics.outboxDeadRows(outbox.source(),
                        engine.queue().outboxAdmin().deadRows(outbox.source()).map(OutboxDeadRows::count).orElse(0L));
            }
        } catch (RuntimeException unavailable) {
            // Valkey down or the engine not started: the outbox gauges keep their last figures.
        }
    }
}
