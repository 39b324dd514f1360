package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
    void includesAreExpandedBeforeTheScriptIsSent(Script script) {
        assertThat(ScriptSource.load(script).text()).doesNotContain("#include");
    }
}
