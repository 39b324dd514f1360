package io.echomq.examples.orders;

import java.util.List;

/** The body of {@code POST /orders/batch}: several orders, placed in one transaction. */
public class OrderBatchRequest {

    public List<OrderRequest> orders;
    /** Roll the whole batch back after its orders are persisted and their jobs enqueued. */
    public boolean rollback;
}
