package io.echomq.testkit.services;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A program a test needs from the machine (spin, promtool, ...). Under CI, which installs it,
 * its absence fails the test; elsewhere it skips the test with the reason and how to install it.
 * CI is recognised as the service discovery recognises it.
 */
public final class RequiredTool {

    private RequiredTool() {
    }

    /** The program {@code name} on PATH; else fails or skips the test with {@code missing}. */
    public static Path require(String name, String missing) {
        return ExecutableOnPath.find(name).orElseGet(() -> {
            require(false, missing);
            throw new AssertionError(missing);
        });
    }

    /** Goes on when {@code installed}; else fails or skips the test with {@code missing}. */
    public static void require(boolean installed, String missing) {
        if (installed) {
            return;
        }
        if (EnvironmentSetting.runningInCi()) {
            throw new AssertionError(missing + " (CI is set: the CI machine must provide it)");
        }
        Assumptions.abort(missing);
    }
}
