package io.echomq.examples.orders;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * One application of an order's fulfilment job, in {@code orders.order_effects}: the row the
 * message-driven bean writes. Deliberately no unique key on the order: an effect applied twice
 * shows as two rows of one order, which is what the tests count (a constraint would turn a
 * duplicate into a failed delivery and hide it). The order id has no foreign key either, so a job
 * that should never have existed (its order rolled back) shows up too.
 */
@Entity
@Table(schema = "orders", name = "order_effects")
public class OrderEffect {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "order_id", nullable = false)
    private long orderId;

    @Column(name = "job_id", nullable = false, length = 64)
    private String jobId;

    @Column(nullable = false)
    private long attempt;

    @Column(name = "applied_at", nullable = false)
    private OffsetDateTime appliedAt;

    protected OrderEffect() {
    }

    public OrderEffect(long orderId, String jobId, long attempt) {
        this.orderId = orderId;
        this.jobId = jobId;
        this.attempt = attempt;
        this.appliedAt = OffsetDateTime.now(ZoneOffset.UTC);
    }

    public Long getId() {
        return id;
    }

    public long getOrderId() {
        return orderId;
    }

    public String getJobId() {
        return jobId;
    }

    public long getAttempt() {
        return attempt;
    }

    public OffsetDateTime getAppliedAt() {
        return appliedAt;
    }
}
