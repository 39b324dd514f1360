package io.echomq.bench;

import io.echomq.demo.LedgerChargeHandler;
import java.util.List;

/**
 * pgbench's script for the per-job ceiling: the engine's own two statements, the effect store's
 * record ({@code EffectStore.recordOneStatement()}, with the store's wait limits) and the demo
 * charge ({@link LedgerChargeHandler#CHARGE}), never a copy of them. pgbench sends BEGIN on its
 * own, one round trip more than the engine makes (its driver sends BEGIN with the first statement).
 */
final class PgbenchScript {

    /**
     * The record statement's positional parameters (queue, job id, creation ms, attempt,
     * idempotency key, queue) as pgbench variables. The job is its own creation time, as in the
     * other ceilings. The key is a literal NULL, a job submitted without one: pgbench has no null
     * parameter, and a variable set to NULL goes out as the text 'NULL', which would make every
     * job after the first a resubmission of the first.
     */
    static final List<String> RECORD_PARAMETERS = List.of(":queue", ":jobId", ":jobId", ":attempt", "NULL", ":queue");

    private PgbenchScript() {
    }

    /**
     * The script; the queue comes from {@code -D queue=NAME}, the other variables the charge
     * statement names (jobId, attempt, account, amount) are set per transaction. Accounts are
     * named by their number alone ("42", where the workload's are "acct-42"): as many, as contended.
     */
    static String of(String recordStatement) {
        return String.join("\n",
                "\\set jobId random(1, 9000000000000000)",
                "\\set attempt 1",
                "\\set account random(0, " + (Workload.ACCOUNTS - 1) + ")",
                "\\set amount random(1, 97)",
                "BEGIN;",
                bind(recordStatement, RECORD_PARAMETERS) + ";",
                LedgerChargeHandler.CHARGE + ";",
                "COMMIT;",
                "");
    }

    /**
     * {@code statement} with its {@code ?} placeholders replaced by {@code values} in order. The
     * counts must match: a statement whose parameters changed fails here, not in a ceiling that
     * quietly measures something else.
     */
    static String bind(String statement, List<String> values) {
        StringBuilder bound = new StringBuilder(statement.length() + 64);
        int next = 0;
        for (int i = 0; i < statement.length(); i++) {
            char c = statement.charAt(i);
            if (c != '?') {
                bound.append(c);
                continue;
            }
            if (next == values.size()) {
                throw new IllegalStateException("the statement has more than " + values.size() + " parameters: " + statement);
            }
            bound.append(values.get(next++));
        }
        if (next != values.size()) {
            throw new IllegalStateException("the statement has " + next + " parameters, not " + values.size() + ": " + statement);
        }
        return bound.toString();
    }
}
