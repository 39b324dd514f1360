package io.echomq.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine applies the migrations the index names, never the folder's listing (application
 * servers cannot all list it): a script added without its line would never run.
 */
class MigrationIndexTest {

    /** The engine's migrations, and the demo handler's. */
    @ParameterizedTest
    @ValueSource(strings = {"src/main/resources/io/echomq/db/migration", "src/main/resources/io/echomq/db/demo"})
    void theIndexNamesEveryScriptOfTheFolderOnceInVersionOrder(String folder) throws IOException {
        Path scriptsFolder = Path.of(folder);
        List<String> indexed = Files.readAllLines(scriptsFolder.resolve("migrations.index")).stream()
                .map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .toList();
        List<String> scripts;
        try (Stream<Path> files = Files.list(scriptsFolder)) {
            scripts = files.map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".sql"))
                    .sorted(Comparator.comparingInt(MigrationIndexTest::version))
                    .toList();
        }

        assertThat(scripts).isNotEmpty();
        assertThat(indexed).containsExactlyElementsOf(scripts);
    }

    /** {@code V12__what.sql} is version 12. */
    private static int version(String script) {
        return Integer.parseInt(script.substring(1, script.indexOf("__")));
    }
}
