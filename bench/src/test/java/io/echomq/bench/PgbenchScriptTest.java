package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class PgbenchScriptTest {

    /** The store is never asked to connect: only its statement is read. */
    private final String record = new EffectStore(Jdbi.create("jdbc:postgresql://unused/unused"), EffectSettings.DEFAULT)
            .recordOneStatement();

    @Test
    void theScriptRunsTheEnginesStatementsInOneTransaction() {
        String script = PgbenchScript.of(record);

        assertThat(script).contains("BEGIN;\n" + PgbenchScript.bind(record, PgbenchScript.RECORD_PARAMETERS) + ";\n"
                + LedgerChargeHandler.CHARGE + ";\nCOMMIT;\n");
        assertThat(script).contains("set_config('lock_timeout', '" + EffectSettings.DEFAULT.lockTimeout().toMillis() + "ms', true)");
    }

    @Test
    void aStatementWhoseParametersChangedIsRefused() {
        assertThatThrownBy(() -> PgbenchScript.bind("SELECT ?, ?", List.of(":a"))).hasMessageContaining("more than 1 parameters");
        assertThatThrownBy(() -> PgbenchScript.bind("SELECT ?", List.of(":a", ":b"))).hasMessageContaining("has 1 parameters, not 2");
    }
}
