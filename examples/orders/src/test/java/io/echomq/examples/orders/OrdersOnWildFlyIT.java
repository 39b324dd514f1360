package io.echomq.examples.orders;

/** The four scenarios of {@link OrdersScenarios} on WildFly; what the server needs is in {@link OrdersOnServer.Kind#WILDFLY}. */
class OrdersOnWildFlyIT extends OrdersScenarios {

    @Override
    OrdersOnServer.Kind kind() {
        return OrdersOnServer.Kind.WILDFLY;
    }
}
