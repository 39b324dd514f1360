package io.echomq.examples.orders;

/**
 * The four scenarios of {@link OrdersScenarios} on Jakarta EE 11: the newest Open Liberty with
 * webProfile-11.0; what the server needs is in {@link OrdersOnServer.Kind#OPEN_LIBERTY_NEWEST}.
 */
class OrdersOnOpenLibertyNewestIT extends OrdersScenarios {

    @Override
    OrdersOnServer.Kind kind() {
        return OrdersOnServer.Kind.OPEN_LIBERTY_NEWEST;
    }
}
