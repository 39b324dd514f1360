package io.echomq.model;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one verifier run reported: the states it stored, the errors it found, which property the
 * first error broke, whether the search was exhaustive, and the trail Spin replays it from.
 *
 * @param violation the broken assertion's flag (e.g. {@code badLeave}), {@code acceptance cycle}
 *                  (an LTL property's counterexample), {@code invalid end state} (a run that got
 *                  stuck), or empty when none
 * @param exhaustive false when pan cut the search short (its depth limit), so a clean run proves nothing
 */
record PanResult(long states, int errors, Optional<String> violation, boolean exhaustive, Optional<Path> trail, long millis,
        String output) {

    private static final Pattern STATES = Pattern.compile("(\\d+) states, stored");
    private static final Pattern ERRORS = Pattern.compile("errors: (\\d+)");
    private static final Pattern ASSERTION = Pattern.compile("pan:\\d+: assertion violated\\s+!\\((\\w+)\\)");
    /** pan's report of a found error (its header, "acceptance cycles +", lists what it looks for). */
    private static final Pattern OTHER_ERROR = Pattern.compile("pan:\\d+: (acceptance cycle|invalid end state)");

    static PanResult parse(String output, Path trail, long millis) {
        Matcher states = STATES.matcher(output);
        Matcher errors = ERRORS.matcher(output);
        if (!states.find() || !errors.find()) {
            throw new IllegalStateException("pan printed no state count or error count:\n" + output);
        }
        return new PanResult(Long.parseLong(states.group(1)), Integer.parseInt(errors.group(1)), violation(output),
                !output.contains("max search depth too small"), Files.exists(trail) ? Optional.of(trail) : Optional.empty(),
                millis, output);
    }

    private static Optional<String> violation(String output) {
        Matcher assertion = ASSERTION.matcher(output);
        if (assertion.find()) {
            return Optional.of(assertion.group(1));
        }
        Matcher other = OTHER_ERROR.matcher(output);
        return other.find() ? Optional.of(other.group(1)) : Optional.empty();
    }
}
