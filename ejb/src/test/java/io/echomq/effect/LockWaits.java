package io.echomq.effect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What PostgreSQL itself says about who waits on whom. A test that claims a transaction is
 * blocked on a key waits until the server shows it waiting there; a test that only waited a
 * while would pass just as well when the transaction never reached the key.
 */
public final class LockWaits {

    private static final Duration LONGEST_WAIT = Duration.ofSeconds(10);

    /** A backend that waits for a lock another one holds, as {@code pg_stat_activity} shows it. */
    public record Waiter(int pid, String waitEventType, String waitEvent, String query) {
    }

    private LockWaits() {
    }

    /** The server process of the connection {@code transaction} runs on: the holder the others wait for. */
    public static int backendOf(Handle transaction) {
        return transaction.createQuery("SELECT pg_backend_pid()").mapTo(Integer.class).one();
    }

    /** Returns the first backend seen waiting for a lock that backend {@code holder} holds (fails after 10 s). */
    public static Waiter awaitBlockedBy(Jdbi jdbi, int holder) {
        return awaitBlockedBy(jdbi, holder, "");
    }

    /**
     * Returns the first backend seen waiting for a lock that backend {@code holder} holds in a
     * statement containing {@code statement} (fails after 10 s). For a test where others may wait
     * on the holder too: an engine's maintenance attaching an effect partition waits for the
     * DEFAULT partition a held effect transaction wrote to.
     */
    public static Waiter awaitBlockedBy(Jdbi jdbi, int holder, String statement) {
        return await("a transaction waits in '" + statement + "' for a lock held by backend " + holder).atMost(LONGEST_WAIT)
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .until(() -> waiterOn(jdbi, holder, statement), Optional::isPresent).orElseThrow();
    }

    /** Whether some backend waits now for a lock that backend {@code holder} holds. */
    public static boolean blocksAnother(Jdbi jdbi, int holder) {
        return waiterOn(jdbi, holder, "").isPresent();
    }

    /** The key's second claimant, as PostgreSQL shows it: its insert of the effect key waits for the holder's transaction to end. */
    public static void assertWaitsOnAnEffectKey(Waiter waiter) {
        assertThat(waiter.waitEventType()).as("waits for a lock").isEqualTo("Lock");
        assertThat(waiter.waitEvent()).as("on the holder's transaction").isEqualTo("transactionid");
        assertThat(waiter.query()).as("in the insert of the effect key").contains("INSERT INTO echomq.effect");
    }

    /**
     * A second job with a taken idempotency key, as PostgreSQL shows it: it waits for the key's
     * advisory lock, which the holder keeps until its transaction ends (the key cannot be a unique
     * index on the partitioned table, V12).
     */
    public static void assertWaitsOnAnIdempotencyKey(Waiter waiter) {
        assertThat(waiter.waitEventType()).as("waits for a lock").isEqualTo("Lock");
        assertThat(waiter.waitEvent()).as("on the key's advisory lock").isEqualTo("advisory");
        assertThat(waiter.query()).as("in the statement that locks the keys").contains("pg_advisory_xact_lock");
    }

    /*
     * pg_stat_activity's row is read when the scan starts, pg_blocking_pids when the row is
     * filtered: a backend that began to wait in between shows as blocked with a row taken while it
     * still ran (no wait event). Only a row that itself shows a lock wait is an answer; the next
     * poll sees the waiter whole.
     */
    private static Optional<Waiter> waiterOn(Jdbi jdbi, int holder, String statement) {
        return jdbi.withHandle(h -> h.createQuery("SELECT pid, wait_event_type, wait_event, query FROM pg_stat_activity "
                        + "WHERE wait_event_type = 'Lock' AND :holder = ANY(pg_blocking_pids(pid)) AND strpos(query, :statement) > 0 LIMIT 1")
                .bind("holder", holder)
                .bind("statement", statement)
                .map((row, ctx) -> new Waiter(row.getInt("pid"), row.getString("wait_event_type"), row.getString("wait_event"),
                        row.getString("query")))
                .findOne());
    }
}
