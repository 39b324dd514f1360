package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.ChildFailure;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewFlow;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A flow's body as the engine's flow: nested children, their policies, and refusals that name the node at fault. */
class FlowBodyTest {

    private static FlowBody bind(String json) {
        return BodyBinding.bind(Json.createReader(new StringReader(json)).readValue(), FlowBody.class);
    }

    @Test
    void aNestedBodyBecomesTheFlowWithEachChildsPolicyAndTheRootsKey() {
        NewFlow flow = bind("""
                {"queue": "imports", "payload": {"file": 7}, "children": [
                  {"queue": "rows", "payload": 1, "onFailure": "run-parent"},
                  {"queue": "rows", "payload": 2, "children": [{"queue": "audit", "payload": "x", "onFailure": "DROP"}]}]}""")
                .toNewFlow(Optional.of("import-7"));

        assertThat(flow.job().idempotencyKey()).contains("import-7");
        assertThat(flow.job().payload()).isEqualTo("{\"file\":7}");
        assertThat(flow.children()).extracting(NewFlow::queue).containsExactly("rows", "rows");
        assertThat(flow.children()).extracting(NewFlow::onFailure).containsExactly(ChildFailure.RUN_PARENT, ChildFailure.FAIL_PARENT);
        assertThat(flow.children().get(1).children().get(0).onFailure()).isEqualTo(ChildFailure.DROP);
    }

    @Test
    void aBadFieldOfANestedChildIsRefusedByItsPathInTheBody() {
        assertThatThrownBy(() -> bind("""
                {"queue": "imports", "payload": 1, "children": [{"queue": "rows", "payload": 1},
                  {"queue": "rows", "payload": 2, "children": [{"queue": "audit"}]}]}"""))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("children[1].children[0].payload"));
        assertThatThrownBy(() -> bind("""
                {"queue": "imports", "payload": 1, "children": [{"queue": "rows", "payload": 1, "onFailure": "ignore"}]}"""))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("children[0].onFailure"));
        assertThatThrownBy(() -> bind("""
                {"queue": "imports", "payload": 1, "children": [{"queue": "rows", "payload": 1, "delayMs": 5}]}"""))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("children[0].delayMs"));
    }
}
