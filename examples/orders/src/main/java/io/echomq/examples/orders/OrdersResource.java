package io.echomq.examples.orders;

import jakarta.ejb.EJB;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The orders over HTTP, at the context root:
 * {@code POST /orders/} (one order; {@code "rollback": true} in the body or {@code ?rollback=true}
 * rolls its transaction back after the job was enqueued), {@code POST /orders/batch} (several in
 * one transaction), {@code GET /orders/{id}}, {@code GET /orders/stats}.
 *
 * <p>POST to {@code /orders/}, with the slash: Payara answers a request for the bare context root
 * ({@code /orders}) with a 301 to {@code /orders/} whatever its method, before the application sees it.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class OrdersResource {

    @EJB
    private OrderService orders;

    /** 201 with the order's id when it committed; 200 with {@code rolledBack: true} when it was rolled back as asked. */
    @POST
    public Response place(OrderRequest request, @QueryParam("rollback") boolean rollback) {
        check(request);
        OrderService.Placed placed = orders.place(List.of(request), rollback || request.rollback);
        return answer(placed);
    }

    @POST
    @Path("batch")
    public Response placeBatch(OrderBatchRequest batch, @QueryParam("rollback") boolean rollback) {
        if (batch == null || batch.orders == null || batch.orders.isEmpty()) {
            throw new BadRequestException("orders: at least one is required");
        }
        batch.orders.forEach(OrdersResource::check);
        return answer(orders.place(batch.orders, rollback || batch.rollback));
    }

    @GET
    @Path("{id: [0-9]+}")
    public Order get(@PathParam("id") long id) {
        Order order = orders.find(id);
        if (order == null) {
            throw new NotFoundException("no order " + id);
        }
        return order;
    }

    @GET
    @Path("stats")
    public OrderService.Stats stats() {
        return orders.stats();
    }

    private static Response answer(OrderService.Placed placed) {
        return Response.status(placed.rolledBack() ? Response.Status.OK : Response.Status.CREATED).entity(placed).build();
    }

    private static void check(OrderRequest request) {
        if (request == null || request.item == null || request.item.isBlank()) {
            throw new BadRequestException("item: is required");
        }
        if (request.quantity < 1) {
            throw new BadRequestException("quantity: must be at least 1");
        }
        if (request.failAttempts < 0) {
            throw new BadRequestException("failAttempts: must not be negative");
        }
    }
}
