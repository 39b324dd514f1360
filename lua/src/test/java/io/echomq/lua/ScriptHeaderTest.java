package io.echomq.lua;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every script is a documented command: a header with its purpose, the invariant it keeps,
 * each KEYS[i] and ARGV[i], and its replies; the KEYS it declares match the count in its
 * file name, and its body uses nothing its header does not declare.
 */
class ScriptHeaderTest {

    private static final Pattern FILE_NAME = Pattern.compile("([a-z][a-z-]*)-(\\d+)\\.lua");
    private static final Pattern DECLARED_KEY = Pattern.compile("(?m)^\\s+KEYS\\[(\\d+)]");
    private static final Pattern DECLARED_ARG = Pattern.compile("(?m)^\\s+ARGV\\[(\\d+)]");
    private static final Pattern USED_KEY = Pattern.compile("KEYS\\[(\\d+)]");
    private static final Pattern USED_ARG = Pattern.compile("ARGV\\[(\\d+)]");
    private static final Pattern INCLUDE = Pattern.compile("(?m)^-- #include ([a-z_]+)$");

    static Stream<Path> scripts() throws IOException, URISyntaxException {
        try (Stream<Path> files = Files.list(folder())) {
            return files.filter(p -> p.toString().endsWith(".lua")).sorted().toList().stream();
        }
    }

    /** Found through a file only the scripts' folder has (the test classes share the package). */
    private static Path folder() throws URISyntaxException {
        return Path.of(ScriptHeaderTest.class.getClassLoader().getResource("io/echomq/lua/includes/now_ms.lua").toURI())
                .getParent().getParent();
    }

    @Test
    void theStateMachineHasOneScriptPerStateChange() throws Exception {
        List<String> commands = scripts().map(p -> command(p.getFileName().toString())).toList();
        assertThat(commands).containsExactlyInAnyOrder(
                "enqueue", "claim", "extend", "complete", "retry", "reap", "cancel", "requeue", "stats", "trim", "set-paused",
                "reconcile", "enqueue-batch", "remove", "complete-claim", "schedule-put", "schedule-remove", "schedule-set-paused",
                "schedules-due", "schedule-fire", "reschedule", "stop", "set-limits", "maintenance-lease", "flow-add", "flow-child-created",
                "flow-child-settled", "flow-notice-ack", "flow-cancels-done", "set-events", "shard-layout", "shard-meta", "key-home-reserve",
                "key-home-confirm", "key-home-release", "key-home-floor", "schedule-home");
    }

    @ParameterizedTest
    @MethodSource("scripts")
    void headerNamesPurposeInvariantInputAndOutput(Path script) throws IOException {
        String header = header(script);
        String name = command(script.getFileName().toString());
        assertThat(header).as("purpose line").startsWith(name + ": ");
        assertThat(header).contains("Invariant: ").contains("Input:").contains("Output:");
    }

    @ParameterizedTest
    @MethodSource("scripts")
    void declaredKeysMatchTheCountInTheFileName(Path script) throws IOException {
        Matcher name = FILE_NAME.matcher(script.getFileName().toString());
        assertThat(name.matches()).as("file name is <command>-<numKeys>.lua").isTrue();
        int keyCount = Integer.parseInt(name.group(2));

        assertThat(indexes(DECLARED_KEY, header(script))).as("KEYS declared in the header")
                .containsExactlyElementsOf(IntStream.rangeClosed(1, keyCount).boxed().toList());
    }

    @ParameterizedTest
    @MethodSource("scripts")
    void bodyUsesOnlyDeclaredKeysAndArguments(Path script) throws IOException {
        String header = header(script);
        String body = body(script);
        TreeSet<Integer> declaredArgs = indexes(DECLARED_ARG, header);
        assertThat(declaredArgs).as("ARGV declared 1..n without gaps")
                .containsExactlyElementsOf(IntStream.rangeClosed(1, declaredArgs.size()).boxed().toList());
        assertThat(declaredArgs).containsAll(indexes(USED_ARG, body));
        assertThat(indexes(DECLARED_KEY, header)).containsAll(indexes(USED_KEY, body));
    }

    @ParameterizedTest
    @MethodSource("scripts")
    void everyIncludeExists(Path script) throws Exception {
        Matcher include = INCLUDE.matcher(Files.readString(script));
        while (include.find()) {
            assertThat(folder().resolve("includes").resolve(include.group(1) + ".lua")).exists();
        }
    }

    private static String command(String fileName) {
        Matcher name = FILE_NAME.matcher(fileName);
        return name.matches() ? name.group(1) : fileName;
    }

    private static String header(Path script) throws IOException {
        String text = Files.readString(script);
        assertThat(text).as(script.getFileName() + " opens with a --[[ header ]]").startsWith("--[[\n");
        return text.substring("--[[\n".length(), text.indexOf("]]")).stripIndent().strip();
    }

    private static String body(Path script) throws IOException {
        String text = Files.readString(script);
        return text.substring(text.indexOf("]]") + 2);
    }

    private static TreeSet<Integer> indexes(Pattern pattern, String text) {
        TreeSet<Integer> found = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(Integer.parseInt(m.group(1)));
        }
        return found;
    }
}
