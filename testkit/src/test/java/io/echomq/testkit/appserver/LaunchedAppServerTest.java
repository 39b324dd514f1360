package io.echomq.testkit.appserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.ServiceDirectories;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The launchers' one start path ({@link LaunchedAppServer#launchOnFreePort}) against a port
 * another process took between the pick and the server's bind: a real child JVM that binds its
 * port and answers HTTP, as every launcher's server does, and fails with the JDK's
 * "Address already in use" when the port is held.
 */
class LaunchedAppServerTest {

    /** A server in a few lines: binds 127.0.0.1:PORT (or fails as any server does), answers 200 on every path. */
    private static final String SERVER_SOURCE = """
            import com.sun.net.httpserver.HttpServer;
            import java.net.InetSocketAddress;

            public class TinyServer {
                public static void main(String[] args) throws Exception {
                    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 0);
                    server.createContext("/", exchange -> {
                        exchange.sendResponseHeaders(200, -1);
                        exchange.close();
                    });
                    server.start();
                }
            }
            """;

    @Test
    void aPortTakenBeforeTheServerBindsItIsRetriedOnAnotherOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(FreePort.onLoopback(), 1, InetAddress.getLoopbackAddress())) {
            List<Integer> handedOut = new ArrayList<>();
            IntSupplier takenFirst = handingOut(handedOut, taken.getLocalPort());

            try (TinyServer server = LaunchedAppServer.launchOnFreePort(takenFirst, TinyServer::new)) {
                assertThat(handedOut).as("ports tried").hasSize(2).first().isEqualTo(taken.getLocalPort());
                assertThat(server.port()).isEqualTo(handedOut.get(1));
                assertThat(server.isRunning()).isTrue();
            }
        }
    }

    @Test
    void aPortTheCallerChoseIsNotRetriedAndTheFailureSaysItWasTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(FreePort.onLoopback(), 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> LaunchedAppServer.launchOnPort(taken.getLocalPort(), TinyServer::new))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " is taken");
        }
    }

    @Test
    void aStartThatFailsForAnotherReasonIsNotRetried() {
        List<Integer> handedOut = new ArrayList<>();
        IntSupplier ports = handingOut(handedOut);

        assertThatThrownBy(() -> LaunchedAppServer.launchOnFreePort(ports, port -> new TinyServer(port, "not-a-port")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with status");
        assertThat(handedOut).as("ports tried").hasSize(1);
    }

    /** Hands out {@code first} (if given), then free ports, and records each. */
    private static IntSupplier handingOut(List<Integer> record, int... first) {
        Iterator<Integer> fixed = java.util.Arrays.stream(first).iterator();
        return () -> {
            int port = fixed.hasNext() ? fixed.next() : FreePort.onLoopback();
            record.add(port);
            return port;
        };
    }

    /** {@link #SERVER_SOURCE} run from source by the test JVM's own java, as a launcher runs its server. */
    private static final class TinyServer extends LaunchedAppServer {

        TinyServer(int port) {
            this(port, Integer.toString(port));
        }

        TinyServer(int port, String portArgument) {
            super(port, "", jvm(port, portArgument));
        }

        private static ServerJvm jvm(int port, String portArgument) {
            Path directory = ServiceDirectories.fresh("tiny-" + port);
            Path source = directory.resolve("TinyServer.java");
            try {
                Files.writeString(source, SERVER_SOURCE);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            List<String> command = List.of(Path.of(ServerInstall.javaHome(), "bin", "java").toString(), source.toString(),
                    portArgument);
            return new ServerJvm("tiny server", command, Map.of(), directory, Optional.empty(),
                    URI.create("http://127.0.0.1:" + port + "/"), "SEVERE", Duration.ofSeconds(60));
        }

        @Override
        public String name() {
            return "tiny";
        }

        @Override
        public String version() {
            return "1";
        }
    }
}
