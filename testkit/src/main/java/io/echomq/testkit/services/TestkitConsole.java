package io.echomq.testkit.services;

/**
 * Lines for the person reading the build log. Plain stderr on purpose: the consuming module picks
 * its own SLF4J binding (or none), and which server a test ran against must always be visible.
 */
public final class TestkitConsole {

    private static final String PREFIX = "[echomq-testkit] ";

    private TestkitConsole() {
    }

    public static void info(String line) {
        System.err.println(PREFIX + line);
    }

    public static void loudWarning(String... lines) {
        String bar = "!".repeat(100);
        StringBuilder text = new StringBuilder().append(PREFIX).append(bar).append('\n');
        for (String line : lines) {
            text.append(PREFIX).append("!!! ").append(line).append('\n');
        }
        text.append(PREFIX).append(bar);
        System.err.println(text);
    }
}
