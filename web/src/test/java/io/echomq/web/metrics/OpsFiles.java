package io.echomq.web.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The operator's files the repository ships under {@code ops/}, and the metric names they mention. */
final class OpsFiles {

    static final Path PROMETHEUS = root().resolve("ops/prometheus");
    static final Path RULES = PROMETHEUS.resolve("echomq-alerts.yml");
    static final Path RULE_TESTS = PROMETHEUS.resolve("echomq-alerts.test.yml");
    static final Path DASHBOARD = root().resolve("ops/grafana/echomq-dashboard.json");

    /** Any EchoMQ metric name: in an expression, a test series, a comment or an annotation. */
    private static final Pattern METRIC = Pattern.compile("\\bechomq_[a-z0-9_]+");

    private OpsFiles() {
    }

    /** Every metric name the file mentions anywhere. */
    /** The metric names {@code file} uses that are not among {@code exported}. */
    static Set<String> unknownMetrics(Path file, Set<String> exported) {
        Set<String> named = new TreeSet<>(metricNames(file));
        named.removeAll(exported);
        return named;
    }

    static Set<String> metricNames(Path file) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(read(file));
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** The repository's root: the parent of this module (Maven runs the tests in the module's folder). */
    private static Path root() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();
    }
}
