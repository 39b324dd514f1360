package io.echomq.examples.orders;

/** The four scenarios of {@link OrdersScenarios} on Payara Micro; what the server needs is in {@link OrdersOnServer.Kind#PAYARA_MICRO}. */
class OrdersOnPayaraIT extends OrdersScenarios {

    @Override
    OrdersOnServer.Kind kind() {
        return OrdersOnServer.Kind.PAYARA_MICRO;
    }
}
