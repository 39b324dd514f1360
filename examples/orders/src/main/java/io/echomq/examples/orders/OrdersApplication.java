package io.echomq.examples.orders;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** JAX-RS at the WAR's context root ({@code /orders} for {@code orders.war}). */
@ApplicationPath("/")
public class OrdersApplication extends Application {
}
