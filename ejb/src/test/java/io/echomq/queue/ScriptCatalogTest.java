package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptSource;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The Java side calls each script with exactly the KEYS its header declares, all in one slot. */
class ScriptCatalogTest {

    private static final Pattern DECLARED_KEY = Pattern.compile("(?m)^\\s+KEYS\\[(\\d+)]");

    @ParameterizedTest
    @EnumSource(Script.class)
    void javaPassesAsManyKeysAsTheScriptDeclares(Script script) {
        String text = ScriptSource.load(script).text();
        String header = text.substring(0, text.indexOf("]]"));
        Matcher declared = DECLARED_KEY.matcher(header);
        int headerCount = 0;
        while (declared.find()) {
            headerCount++;
        }

        assertThat(script.keys(new QueueKeys("orders"), "42"))
                .hasSize(script.declaredKeyCount())
                .hasSize(headerCount);
    }

    @ParameterizedTest
    @EnumSource(Script.class)
    void everyKeyOfAQueueSharesItsHashTag(Script script) {
        assertThat(script.keys(new QueueKeys("orders"), "42")).allSatisfy(key -> assertThat(key).startsWith("echomq:{orders}:"));
    }

    @ParameterizedTest
    @EnumSource(Script.class)
    void everyKeyAScriptIsGivenOrBuildsHashesToTheQueuesSlot(Script script) {
        for (String queue : List.of("orders", "payments", "q-1", "a.b_c")) {
            QueueKeys keys = new QueueKeys(queue);
            int slot = JedisClusterCRC16.getSlot(keys.prefix());
            List<String> keysTheScriptTouches = new ArrayList<>(script.keys(keys, "42"));
            // Scripts derive job, history and lane keys from the prefix they are handed.
            keysTheScriptTouches.addAll(List.of(keys.job("7"), keys.history("7"), keys.pending("default"), keys.prefix() + "anything"));
            assertThat(keysTheScriptTouches).allSatisfy(key -> assertThat(JedisClusterCRC16.getSlot(key)).as(key).isEqualTo(slot));
        }
    }

    @ParameterizedTest
    @EnumSource(Script.class)
    void includesAreExpandedBeforeTheScriptIsSent(Script script) {
        assertThat(ScriptSource.load(script).text()).doesNotContain("#include");
    }
}
