package io.echomq.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The turn of the timed sweep of one outbox table, shared by every relay of that table, on every
 * node (V13): a relay's timer sweeps only when it takes the turn, so the nodes together sweep
 * about once per interval however many there are, instead of once each. The turn lives in the
 * table's own database, so relays of two databases never share one by a name, and it is taken
 * on the database's clock, which every node reads alike.
 *
 * <p>Invariant: the turn is taken at most once per {@code spacing}: taking it moves
 * {@code next_at} from a time already past to {@code spacing} from now, under the row's lock.
 * A relay that dies holds nothing; the next to come after {@code next_at} takes it.
 */
final class SweepTurns {

    private static final Logger LOG = Logger.getLogger(SweepTurns.class.getName());
    private static final String TAKE = "UPDATE echomq.outbox_sweep_turn SET next_at = clock_timestamp() + ? * interval '1 millisecond' "
            + "WHERE id = 1 AND next_at <= clock_timestamp()";

    private final DataSource dataSource;
    private final long spacingMs;

    /**
     * @param interval each relay's timer; the turn is spaced a tenth shorter, so that a relay
     *                 alone, whose timer runs an interval after its last sweep ended, always finds
     *                 its turn free
     */
    SweepTurns(DataSource dataSource, Duration interval) {
        this.dataSource = dataSource;
        this.spacingMs = Math.max(1, interval.toMillis() * 9 / 10);
    }

    /**
     * Takes the turn if it is free. True also when the turn cannot be read (the table missing or
     * the database failing): a sweep then costs what it always did, and finds the same failure.
     */
    boolean take() {
        try (Connection connection = dataSource.getConnection(); PreparedStatement take = connection.prepareStatement(TAKE)) {
            take.setLong(1, spacingMs);
            boolean taken = take.executeUpdate() == 1;
            if (!connection.getAutoCommit()) {
                // A data source handing out connections in a transaction: the turn holds once committed.
                connection.commit();
            }
            return taken;
        } catch (SQLException e) {
            LOG.log(Level.FINE, "outbox sweep turn not read; sweeping anyway", e);
            return true;
        }
    }
}
