package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules an operator loads ({@code ops/prometheus/echomq-alerts.yml}): valid for
 * Prometheus, each alert firing and staying quiet as its unit tests say, and built only on
 * metrics the WAR exports. promtool's output goes to the build log.
 */
class AlertRulesTest {

    @Test
    void rulesPassPromtoolCheck() {
        assertPromtoolSucceeds("check", "rules", OpsFiles.RULES);
    }

    @Test
    void everyAlertFiresAndStaysQuietAsItsUnitTestsSay() {
        assertPromtoolSucceeds("test", "rules", OpsFiles.RULE_TESTS);
    }

    @Test
    void everyMetricTheRulesAndTheirTestsNameIsOneTheWarExports() {
        Set<String> exported = ExportedMetrics.names();

        assertThat(OpsFiles.unknownMetrics(OpsFiles.RULES, exported)).as("metrics named in the rules that /metrics does not serve (it serves %s)", exported)
                .isEmpty();
        assertThat(OpsFiles.unknownMetrics(OpsFiles.RULE_TESTS, exported)).as("metrics named in the rules' tests that /metrics does not serve").isEmpty();
        assertThat(OpsFiles.metricNames(OpsFiles.RULES)).as("the rules name metrics at all").isNotEmpty();
    }

    /** Runs {@code promtool <command> <kind> <file>} beside the rules; it must exit 0 and say SUCCESS. */
    private static void assertPromtoolSucceeds(String command, String kind, Path file) {
        Promtool.assertSucceeds(OpsFiles.PROMETHEUS, command, kind, file.getFileName().toString());
    }
}
