package io.echomq.examples.orders;

/** The four scenarios of {@link OrdersScenarios} on Open Liberty; what the server needs is in {@link OrdersOnServer.Kind#OPEN_LIBERTY}. */
class OrdersOnOpenLibertyIT extends OrdersScenarios {

    @Override
    OrdersOnServer.Kind kind() {
        return OrdersOnServer.Kind.OPEN_LIBERTY;
    }
}
