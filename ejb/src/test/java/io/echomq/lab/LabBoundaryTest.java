package io.echomq.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.worker.FaultInjector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Crash injection is the lab's, behind the worker's one seam. Read from the compiled engine: a
 * class names another in its constant pool, so the names found there are what it depends on.
 */
class LabBoundaryTest {

    private static final Pattern ENGINE_TYPE = Pattern.compile("io/echomq/[a-z]+/[A-Za-z0-9_$]+");
    private static final String LAB = "io/echomq/lab/";
    private static final String DEMO = "io/echomq/demo/";

    @Test
    void theLabReachesTheWorkerAsEveryRuntimeDoesPlusTheOneSeam() {
        Set<String> workerTypes = new TreeSet<>();
        for (Path labClass : classesUnder(LAB)) {
            typesNamedBy(labClass).stream().filter(t -> t.startsWith("io/echomq/worker/")).forEach(workerTypes::add);
        }

        assertThat(workerTypes).as("worker types the lab names: its settings, its listener, the worker it starts, the seam")
                .isSubsetOf("io/echomq/worker/WorkerSettings", "io/echomq/worker/WorkerListener", "io/echomq/worker/QueueWorker",
                        "io/echomq/worker/FaultInjector", "io/echomq/worker/FaultInjector$Crash");
    }

    @Test
    void nothingTheAdaptersEngineCarriesNamesTheLab() {
        Set<String> namingTheLab = new TreeSet<>();
        for (Path engineClass : classesUnder("io/echomq/")) {
            String name = classesRoot().relativize(engineClass).toString().replace('\\', '/');
            if (!name.startsWith(LAB) && !name.startsWith(DEMO)
                    && typesNamedBy(engineClass).stream().anyMatch(t -> t.startsWith(LAB))) {
                namingTheLab.add(name);
            }
        }

        assertThat(namingTheLab).as("engine classes that would fail in the adapter, whose engine jar leaves the lab out").isEmpty();
    }

    private static Set<String> typesNamedBy(Path classFile) {
        try {
            Matcher m = ENGINE_TYPE.matcher(new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1));
            Set<String> types = new TreeSet<>();
            while (m.find()) {
                types.add(m.group());
            }
            return types;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<Path> classesUnder(String folder) {
        try (Stream<Path> files = Files.walk(classesRoot().resolve(folder))) {
            Set<Path> classes = new TreeSet<>();
            files.filter(f -> f.toString().endsWith(".class")).forEach(classes::add);
            assertThat(classes).as("compiled classes under " + folder).isNotEmpty();
            return classes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The engine's compiled classes: a folder in a module build, which is where these tests run. */
    private static Path classesRoot() {
        try {
            Path root = Path.of(FaultInjector.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertThat(root).as("the engine's classes folder").isDirectory();
            return root;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
