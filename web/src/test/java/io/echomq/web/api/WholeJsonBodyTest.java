package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.JsonException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WholeJsonBodyTest {

    @ParameterizedTest
    @ValueSource(strings = {"{\"payload\":1}", "{\"payload\":{\"a\":[1,{}]}} \r\n\t ", "[{\"payload\":1},{\"payload\":2}]", "12345", "\"text\"", "", " \r\n"})
    void oneValueWithNothingButWhitespaceAfterItPasses(String body) {
        assertThatCode(() -> WholeJsonBody.requireNothingAfterTheValue(bytes(body))).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"payload\":1}{\"payload\":2}", "{\"payload\":1}\u0001", "{\"payload\":1}x", "[{\"payload\":1}]]",
            "\"a\" \"b\"", "{\"payload\":1},", "1 2", "{\"payload\":1}\u0000"})
    void anythingAfterTheValueIsRefusedSoNoSecondJobIsSilentlyDropped(String body) {
        assertThatThrownBy(() -> WholeJsonBody.requireNothingAfterTheValue(bytes(body))).isInstanceOf(JsonException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"payload\":", "{\"payload\":1", "[1,", "{\"payload\":\u0001}"})
    void aBrokenValueIsRefused(String body) {
        assertThatThrownBy(() -> WholeJsonBody.requireNothingAfterTheValue(bytes(body))).isInstanceOf(JsonException.class);
    }

    @Test
    void nestingPastTheParsersLimitIsRefusedAsUnreadableJson() {
        String deep = "{\"payload\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        assertThatThrownBy(() -> WholeJsonBody.requireNothingAfterTheValue(bytes(deep))).isInstanceOf(JsonException.class);
    }

    private static byte[] bytes(String body) {
        return body.getBytes(StandardCharsets.UTF_8);
    }
}
