package io.echomq.outbox;

import io.echomq.api.JobRequest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;

/**
 * Writes checked requests into {@code echomq.outbox}, in whatever transaction the connection is
 * in: inside a container's JTA transaction the container enlists the data source's connection,
 * and in a job's effect transaction the rows are written on its own connection, so either way
 * the rows commit or roll back with the caller's own writes. The one writer of outbox rows.
 */
public final class OutboxWriter {

    /** One statement for the whole batch: the rows are written together or not at all. */
    private static final String INSERT = "INSERT INTO echomq.outbox (queue, payload, lane, idempotency_key, max_attempts, delay_ms, priority) "
            + "SELECT q, p, l, k, m, d, r FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int4[], ?::int8[], ?::int2[]) "
            + "AS r(q, p, l, k, m, d, r) RETURNING id";

    private OutboxWriter() {
    }

    /**
     * Inserts one row per request, which must already be checked ({@link JobRequests}).
     *
     * @return the rows' ids, in the order of the requests
     */
    public static List<Long> insert(DataSource dataSource, List<JobRequest> requests) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return insert(connection, requests);
        }
    }

    /**
     * As {@link #insert(DataSource, List)}, on a connection the caller holds (an effect
     * transaction's), in whatever transaction it is in; the connection stays open.
     */
    public static List<Long> insert(Connection connection, List<JobRequest> requests) throws SQLException {
        int n = requests.size();
        String[] queues = new String[n];
        String[] payloads = new String[n];
        String[] lanes = new String[n];
        String[] keys = new String[n];
        Integer[] maxAttempts = new Integer[n];
        Long[] delays = new Long[n];
        Short[] priorities = new Short[n];
        for (int i = 0; i < n; i++) {
            JobRequest request = requests.get(i);
            queues[i] = request.queue();
            payloads[i] = request.payload();
            lanes[i] = request.lane();
            keys[i] = request.idempotencyKey();
            maxAttempts[i] = request.maxAttempts() == 0 ? null : request.maxAttempts();
            delays[i] = request.delayMs();
            priorities[i] = (short) request.priority();
        }
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            List<Array> arrays = List.of(connection.createArrayOf("text", queues), connection.createArrayOf("text", payloads),
                    connection.createArrayOf("text", lanes), connection.createArrayOf("text", keys),
                    connection.createArrayOf("int4", maxAttempts), connection.createArrayOf("int8", delays),
                    connection.createArrayOf("int2", priorities));
            for (int i = 0; i < arrays.size(); i++) {
                insert.setArray(i + 1, arrays.get(i));
            }
            List<Long> ids = new ArrayList<>(n);
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                }
            }
            if (ids.size() != n) {
                throw new SQLException("the outbox insert returned " + ids.size() + " ids for " + n + " rows");
            }
            // The sequence is drawn row by row in unnest's order: ascending ids are the requests' order.
            Collections.sort(ids);
            return ids;
        }
    }

    /**
     * PostgreSQL text cannot hold U+0000, which Valkey and the direct path accept: refused before
     * anything is written, like every other check.
     */
    public static void checkStorable(List<JobRequest> requests, boolean batch) {
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i).payload().indexOf('\u0000') >= 0) {
                String at = batch ? "requests[" + i + "]." : "";
                throw new IllegalArgumentException(at + "payload: must not contain the character U+0000 when enqueued inside a "
                        + "transaction (the outbox is a PostgreSQL text column)");
            }
        }
    }
}
