package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.appserver.AppServer;
import io.echomq.testkit.appserver.PayaraMicroServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end launcher itself: a crash and a restart, and the trap STACK.md warns about (a
 * failed deployment that Payara reports as deployed) turned into a failed start.
 */
@WithRealServices
class PayaraMicroServerIT {

    @Test
    void aKilledServerRestartsOnTheSamePortAndStopsForGood(ValkeyService valkey, PostgresService postgres) {
        try (E2eDeployment app = new E2eDeployment(valkey, postgres, 1, Map.of())) {
            AppServer payara = app.server;
            E2eHttp http = app.anonymous;
            long firstPid = payara.pid();
            assertThat(http.get("/api/about").status()).isEqualTo(200);

            payara.killHard();

            assertThat(payara.isRunning()).isFalse();
            assertThat(ProcessHandle.of(firstPid)).isEmpty();
            assertThatThrownBy(() -> http.get("/api/about")).isInstanceOf(UncheckedIOException.class);

            payara.restart();

            assertThat(payara.pid()).isNotEqualTo(firstPid);
            assertThat(http.get("/api/about").status()).isEqualTo(200);

            long secondPid = payara.pid();
            payara.stop();

            assertThat(payara.isRunning()).isFalse();
            assertThat(ProcessHandle.of(secondPid)).isEmpty();
        }
    }

    @Test
    void aDeploymentThatLogsSevereFailsTheStartWithItsCause(@TempDir Path folder) throws IOException {
        Path war = warWithMissingServletClass(folder.resolve("broken.war"));
        int port = freePort();

        assertThatThrownBy(() -> PayaraMicroServer.forWar(war).port(port).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("logged SEVERE")
                .hasMessageContaining("no.such.StartupServlet");

        // The failed server was killed: its port is free again.
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }

    /** Payara logs "Deployed 1 archive(s)" for this WAR, then SEVERE for the servlet it cannot load. */
    private static Path warWithMissingServletClass(Path war) throws IOException {
        String webXml = """
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                  <servlet>
                    <servlet-name>startup</servlet-name>
                    <servlet-class>no.such.StartupServlet</servlet-class>
                    <load-on-startup>1</load-on-startup>
                  </servlet>
                  <servlet-mapping>
                    <servlet-name>startup</servlet-name>
                    <url-pattern>/api/*</url-pattern>
                  </servlet-mapping>
                </web-app>
                """;
        try (OutputStream file = Files.newOutputStream(war); JarOutputStream jar = new JarOutputStream(file)) {
            jar.putNextEntry(new JarEntry("WEB-INF/web.xml"));
            jar.write(webXml.getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return war;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
