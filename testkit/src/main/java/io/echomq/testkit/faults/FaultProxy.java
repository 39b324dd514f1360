package io.echomq.testkit.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy that injects network faults between a client and a server, for tests:
 * {@link #freeze()} stops forwarding while connections stay open (a stalled network),
 * {@link #cut()} closes every open connection (a reset), {@link #slow(long)} delays every chunk,
 * and {@link #cutAfterClientSends(String)} cuts a connection right after forwarding a message
 * containing a marker, so the server acts on it but the client never hears back (e.g. a COMMIT
 * whose outcome the client cannot know). Plain blocking sockets, two threads per connection.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.to("127.0.0.1", serverPort)) {
 *     connect to 127.0.0.1:proxy.port() ...
 *     proxy.freeze(); Thread.sleep(3000); proxy.heal();
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {

    private static final int CHUNK = 16 * 1024;

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Set by {@link #close()} under the lock of {@link #open}: no connection is registered (forwarded) after it. */
    private boolean closed;
    private final AtomicInteger cuts = new AtomicInteger();
    private final Object gate = new Object();
    private volatile boolean frozen;
    private volatile long delayMs;
    private volatile String cutMarker;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on a free loopback port forwarding to {@code host:port}. */
    public static FaultProxy to(String host, int port) throws IOException {
        return new FaultProxy(host, port);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Stops forwarding in both directions; connections stay open, bytes wait. */
    public void freeze() {
        frozen = true;
    }

    /** Delays every forwarded chunk by {@code millis}. */
    public void slow(long millis) {
        delayMs = millis;
    }

    /** Ends freeze and slowness (and a pending cut-after-marker). */
    public void heal() {
        cutMarker = null;
        delayMs = 0;
        frozen = false;
        synchronized (gate) {
            gate.notifyAll();
        }
    }

    /** Closes every open connection at once; new connections are accepted as before. */
    public void cut() {
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }

    /** The next client message containing {@code marker} is forwarded, then its connection is cut. */
    public void cutAfterClientSends(String marker) {
        cutMarker = marker;
    }

    /** How many connections a marker has cut so far. */
    public int markerCuts() {
        return cuts.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
                // A close can finish while this thread is in accept (the JDK defers closing a
                // listener a thread is blocked on, and the kernel completes connections meanwhile):
                // such a connection is refused here, not forwarded past the close.
                if (!register(client, server)) {
                    closeQuietly(client);
                    closeQuietly(server);
                    return;
                }
                pump(client, server, true);
                pump(server, client, false);
            } catch (IOException e) {
                // The listener closed, or the server refused this one connection: the client sees a reset.
            }
        }
    }

    private boolean register(Socket client, Socket server) {
        synchronized (open) {
            if (closed) {
                return false;
            }
            open.add(client);
            open.add(server);
            return true;
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[CHUNK];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitThaw();
                    if (delayMs > 0) {
                        Thread.sleep(delayMs);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    String marker = cutMarker;
                    if (fromClient && marker != null
                            && new String(buffer, 0, n, StandardCharsets.ISO_8859_1).contains(marker)) {
                        cutMarker = null;
                        cuts.incrementAndGet();
                        break;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // A cut or a peer closing: end both directions below.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "fault-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void awaitThaw() throws InterruptedException {
        synchronized (gate) {
            while (frozen) {
                gate.wait(100);
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    @Override
    public void close() {
        synchronized (open) {
            closed = true;
        }
        closeQuietly(listener);
        cut();
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }
}
