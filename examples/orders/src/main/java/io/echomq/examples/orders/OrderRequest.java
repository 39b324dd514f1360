package io.echomq.examples.orders;

/**
 * The body of {@code POST /orders}: what to order, and two switches for the tests.
 * A public-field bean, bound by JSON-B.
 */
public class OrderRequest {

    /** What is ordered. */
    public String item;
    /** How many; at least 1. */
    public int quantity = 1;
    /** Roll the business transaction back after the order is persisted and its job enqueued. */
    public boolean rollback;
    /** The fulfilment fails (after writing its row) on every attempt up to this one; 0: never. */
    public int failAttempts;
}
