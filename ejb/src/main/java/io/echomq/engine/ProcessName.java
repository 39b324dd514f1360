package io.echomq.engine;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** How an engine names its claims in job histories: the host and the process, so an operator can find the JVM. */
public final class ProcessName {

    private ProcessName() {
    }

    /** {@code <host>-<pid>}. */
    public static String ofThisProcess() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + "-" + ProcessHandle.current().pid();
    }
}
