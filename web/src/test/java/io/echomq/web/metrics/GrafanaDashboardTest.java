package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard an operator imports ({@code ops/grafana/echomq-dashboard.json}): valid
 * JSON, importable into any Grafana (its Prometheus is a variable, {@code ${DS_PROMETHEUS}}),
 * filtered by a {@code queue} variable, with queries Prometheus parses over metrics the WAR
 * exports.
 */
class GrafanaDashboardTest {

    private static final String DATASOURCE = "${DS_PROMETHEUS}";

    @Test
    void theDashboardIsJsonWithItsDatasourceAndQueueAsVariables() {
        JsonObject dashboard = dashboard();

        Map<String, JsonObject> variables = dashboard.getJsonObject("templating").getJsonArray("list").stream()
                .map(JsonValue::asJsonObject).collect(Collectors.toMap(v -> v.getString("name"), v -> v));
        assertThat(variables).containsKeys("DS_PROMETHEUS", "queue");
        assertThat(variables.get("DS_PROMETHEUS").getString("type")).isEqualTo("datasource");
        assertThat(variables.get("DS_PROMETHEUS").getString("query")).isEqualTo("prometheus");
        assertThat(variables.get("queue").getJsonObject("datasource").getString("uid")).isEqualTo(DATASOURCE);
        assertThat(variables.get("queue").getString("definition")).contains("echomq_queue_jobs");
        for (JsonObject panel : panels(dashboard)) {
            assertThat(panel.getString("description", "")).as("panel '%s' says what it shows", panel.getString("title")).isNotBlank();
            assertThat(panel.getJsonObject("datasource").getString("uid")).as("panel '%s'", panel.getString("title")).isEqualTo(DATASOURCE);
            assertThat(panel.getJsonArray("targets")).as("panel '%s' queries", panel.getString("title")).isNotEmpty();
        }
    }

    @Test
    void everyMetricTheDashboardNamesIsOneTheWarExports() {
        assertThat(OpsFiles.unknownMetrics(OpsFiles.DASHBOARD, ExportedMetrics.names()))
                .as("metrics named in the dashboard that /metrics does not serve").isEmpty();
        assertThat(OpsFiles.metricNames(OpsFiles.DASHBOARD)).isNotEmpty();
    }

    @Test
    void everyPanelQueryIsPromqlThatPromtoolParses(@TempDir Path folder) throws IOException {
        List<String> queries = queries(dashboard());
        Path rules = folder.resolve("dashboard-queries.yml");
        Files.writeString(rules, asRecordingRules(queries));

        assertThat(Promtool.assertSucceeds(folder, "check", "rules", rules.getFileName().toString()))
                .as("promtool checked every one of the dashboard's queries").contains(queries.size() + " rules found");
    }

    private static JsonObject dashboard() {
        try (JsonReader reader = Json.createReader(new StringReader(OpsFiles.read(OpsFiles.DASHBOARD)))) {
            return reader.readObject();
        }
    }

    /** The panels that query (rows only group them). */
    private static List<JsonObject> panels(JsonObject dashboard) {
        return dashboard.getJsonArray("panels").stream().map(JsonValue::asJsonObject)
                .filter(p -> !"row".equals(p.getString("type"))).toList();
    }

    /** Each panel query with Grafana's variables given values Prometheus would see. */
    private static List<String> queries(JsonObject dashboard) {
        List<String> queries = new ArrayList<>();
        for (JsonObject panel : panels(dashboard)) {
            for (JsonValue target : panel.getJsonArray("targets")) {
                queries.add(((JsonString) target.asJsonObject().get("expr")).getString()
                        .replace("$queue", ".*").replace("$__rate_interval", "5m"));
            }
        }
        return queries;
    }

    /** promtool checks PromQL in rule files: each query becomes a recording rule. */
    private static String asRecordingRules(List<String> queries) {
        StringBuilder yaml = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < queries.size(); i++) {
            yaml.append("      - record: echomq_dashboard_query_").append(i).append('\n')
                    .append("        expr: '").append(queries.get(i).replace("'", "''")).append("'\n");
        }
        return yaml.toString();
    }
}
