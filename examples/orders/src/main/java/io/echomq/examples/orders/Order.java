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
 * An order, in the application's own table {@code orders.orders}. Created NEW by
 * {@link OrderService#place}; FULFILLED by {@link OrderFulfillment} when its job runs. (ORDER is a
 * reserved word in JPQL, hence the entity's name.)
 */
@Entity(name = "PurchaseOrder")
@Table(schema = "orders", name = "orders")
public class Order {

    public static final String NEW = "NEW";
    public static final String FULFILLED = "FULFILLED";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = 200)
    private String item;

    @Column(nullable = false)
    private int quantity;

    @Column(nullable = false, length = 20)
    private String status = NEW;

    @Column(name = "created_at", nullable = false)
    private OffsetDateTime createdAt;

    @Column(name = "fulfilled_at")
    private OffsetDateTime fulfilledAt;

    /** The job's delivery that fulfilled it. */
    @Column(name = "fulfilled_attempt")
    private Long fulfilledAttempt;

    protected Order() {
    }

    public Order(String item, int quantity) {
        this.item = item;
        this.quantity = quantity;
        this.createdAt = OffsetDateTime.now(ZoneOffset.UTC);
    }

    void fulfil(long attempt) {
        status = FULFILLED;
        fulfilledAt = OffsetDateTime.now(ZoneOffset.UTC);
        fulfilledAttempt = attempt;
    }

    public Long getId() {
        return id;
    }

    public String getItem() {
        return item;
    }

    public int getQuantity() {
        return quantity;
    }

    public String getStatus() {
        return status;
    }

    public OffsetDateTime getCreatedAt() {
        return createdAt;
    }

    public OffsetDateTime getFulfilledAt() {
        return fulfilledAt;
    }

    public Long getFulfilledAttempt() {
        return fulfilledAttempt;
    }
}
