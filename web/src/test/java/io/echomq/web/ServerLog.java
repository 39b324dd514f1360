package io.echomq.web;

import io.echomq.testkit.appserver.AppServer;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A server's console log from a mark on, for tests that demand an ordinary exchange leave no
 * error there: an operator's alerting reads these lines, and a 401 is not an incident.
 */
final class ServerLog {

    /** An error entry in each family's console format: WildFly {@code ERROR [}, Liberty {@code [ERROR   ]}, Payara {@code SEVERE}. */
    private static final Pattern ERROR_ENTRY = Pattern.compile(" ERROR \\[|\\[ERROR |\\bSEVERE\\b");

    private ServerLog() {
    }

    /** Where the log ends now: {@link #errorsSince} reads from here. */
    static long mark(AppServer server) {
        try {
            return Files.size(server.logFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + server.logFile(), e);
        }
    }

    /** The error entries the server logged after {@code mark}. */
    static List<String> errorsSince(AppServer server, long mark) {
        try (RandomAccessFile in = new RandomAccessFile(server.logFile().toFile(), "r")) {
            byte[] bytes = new byte[(int) Math.max(0, in.length() - mark)];
            in.seek(mark);
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8).lines().filter(line -> ERROR_ENTRY.matcher(line).find()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + server.logFile(), e);
        }
    }
}
