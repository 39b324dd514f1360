package io.echomq.testkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Data sources that fail on purpose at one step, for the crash points of the code that uses them. */
public final class FaultyDataSources {

    private FaultyDataSources() {
    }

    /**
     * {@code real}, except that its connections refuse to prepare any {@code DELETE}: an outbox
     * relay using it sends its rows and then fails to forget them, as a relay that dies between
     * the two leaves them.
     */
    public static DataSource refusingDeletes(DataSource real) {
        ClassLoader loader = FaultyDataSources.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            Object result = invoke(real, method, args);
            if (!method.getName().equals("getConnection")) {
                return result;
            }
            Connection connection = (Connection) result;
            return Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, (p, m, a) -> {
                if (m.getName().equals("prepareStatement") && String.valueOf(a[0]).startsWith("DELETE")) {
                    throw new SQLException("DELETE refused (the relay died here)");
                }
                return invoke(connection, m, a);
            });
        });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
