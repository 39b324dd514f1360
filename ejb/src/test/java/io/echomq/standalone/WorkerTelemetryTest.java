package io.echomq.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.runtime.ConfigReader;
import io.echomq.tracing.JobTelemetry;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The standalone worker's telemetry switch: off by default, and off costs no OpenTelemetry class. */
class WorkerTelemetryTest {

    @Test
    void telemetryIsOffUnlessOtelSdkDisabledIsFalse() {
        assertThat(WorkerTelemetry.from(ConfigReader.environment(Map.of())).jobs()).isSameAs(JobTelemetry.OFF);
        assertThat(WorkerTelemetry.from(ConfigReader.environment(Map.of("OTEL_SDK_DISABLED", "true"))).jobs())
                .isSameAs(JobTelemetry.OFF);
    }

    @Test
    void aWorkerWithTelemetryOffLoadsNoOpenTelemetryClass() throws Exception {
        try (RecordingClassLoader loader = new RecordingClassLoader(entry -> true)) {
            Object telemetry = workerTelemetryFrom(loader, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"));

            assertThat(telemetry.toString()).contains("jobs=off");
            assertThat(loader.loaded).as("classes the switch loaded").contains(WorkerTelemetry.class.getName())
                    .noneMatch(name -> name.startsWith("io.opentelemetry."));
        }
    }

    @Test
    void telemetryOnWithoutTheSdkOnTheClassPathIsASettingErrorThatSaysWhatToAdd() throws Exception {
        try (RecordingClassLoader loader = new RecordingClassLoader(entry -> !entry.contains("opentelemetry-sdk"))) {
            InvocationTargetException refused = org.junit.jupiter.api.Assertions.assertThrows(InvocationTargetException.class,
                    () -> workerTelemetryFrom(loader, Map.of("OTEL_SDK_DISABLED", "false")));

            assertThat(refused.getCause().getClass().getName()).isEqualTo("io.echomq.runtime.ConfigurationException");
            assertThat(refused.getCause().getMessage()).contains("otel.sdk.disabled (env OTEL_SDK_DISABLED)")
                    .contains("io.opentelemetry:opentelemetry-sdk-extension-autoconfigure");
        }
    }

    /** {@link WorkerTelemetry#from} run in {@code loader}, with {@code environment} as the worker's. */
    private static Object workerTelemetryFrom(ClassLoader loader, Map<String, String> environment) throws Exception {
        Class<?> reader = loader.loadClass(ConfigReader.class.getName());
        Object settings = reader.getMethod("environment", Map.class).invoke(null, environment);
        Method from = loader.loadClass(WorkerTelemetry.class.getName()).getDeclaredMethod("from", reader);
        from.setAccessible(true);
        return from.invoke(null, settings);
    }

    /** The test's class path in a loader of its own (beside the JDK's), recording each class it defines. */
    private static final class RecordingClassLoader extends URLClassLoader {

        final List<String> loaded = new CopyOnWriteArrayList<>();

        RecordingClassLoader(Predicate<String> keepEntry) {
            super(classPath(keepEntry), ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            Class<?> found = super.findClass(name);
            loaded.add(name);
            return found;
        }

        private static URL[] classPath(Predicate<String> keepEntry) {
            return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).filter(keepEntry).map(entry -> {
                try {
                    return new File(entry).toURI().toURL();
                } catch (MalformedURLException e) {
                    throw new IllegalStateException(entry, e);
                }
            }).toArray(URL[]::new);
        }
    }
}
