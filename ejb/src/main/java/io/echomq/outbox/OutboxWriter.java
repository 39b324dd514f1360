package io.echomq.outbox;

import io.echomq.api.FlowRequest;
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
    private static final String INSERT = "INSERT INTO echomq.outbox (queue, payload, lane, idempotency_key, max_attempts, delay_ms, priority, "
            + "flow, creation_context) SELECT q, p, l, k, m, d, r, f, ? FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int4[], "
            + "?::int8[], ?::int2[], ?::text[]) AS r(q, p, l, k, m, d, r, f) RETURNING id";

    private OutboxWriter() {
    }

    /**
     * Inserts one row per request, which must already be checked ({@link JobRequests}).
     *
     * @return the rows' ids, in the order of the requests
     */
    public static List<Long> insert(DataSource dataSource, List<JobRequest> requests) throws SQLException {
        return insert(dataSource, requests, null, "");
    }

    /**
     * As {@link #insert(DataSource, List)}, with a flow's children and a creation context.
     *
     * @param flows            per request, the children of the flow it is the root of
     *                         ({@link OutboxFlows#encodeChildren}) or null for a plain job; null for all plain
     * @param creationContext  the trace context of the span that writes the rows, stored with each ({@code ""}: none)
     */
    public static List<Long> insert(DataSource dataSource, List<JobRequest> requests, List<String> flows, String creationContext)
            throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return insert(connection, requests, flows, creationContext);
        }
    }

    /**
     * As {@link #insert(DataSource, List)}, on a connection the caller holds (an effect
     * transaction's), in whatever transaction it is in; the connection stays open.
     */
    public static List<Long> insert(Connection connection, List<JobRequest> requests) throws SQLException {
        return insert(connection, requests, null, "");
    }

    /** As {@link #insert(DataSource, List, List, String)}, on a connection the caller holds. */
    public static List<Long> insert(Connection connection, List<JobRequest> requests, List<String> flows, String creationContext)
            throws SQLException {
        int n = requests.size();
        String[] flowColumn = flows == null ? new String[n] : flows.toArray(String[]::new);
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
            insert.setString(1, creationContext == null || creationContext.isEmpty() ? null : creationContext);
            List<Array> arrays = List.of(connection.createArrayOf("text", queues), connection.createArrayOf("text", payloads),
                    connection.createArrayOf("text", lanes), connection.createArrayOf("text", keys),
                    connection.createArrayOf("int4", maxAttempts), connection.createArrayOf("int8", delays),
                    connection.createArrayOf("int2", priorities), connection.createArrayOf("text", flowColumn));
            for (int i = 0; i < arrays.size(); i++) {
                insert.setArray(i + 2, arrays.get(i));
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

    /** As {@link #checkStorable(List, boolean)}, for every job of a flow ({@code children[1].payload}, …). */
    public static void checkStorable(FlowRequest flow) {
        checkStorable(flow, "");
    }

    private static void checkStorable(FlowRequest node, String at) {
        checkPayload(node.job(), at);
        for (int i = 0; i < node.children().size(); i++) {
            checkStorable(node.children().get(i), at + "children[" + i + "].");
        }
    }

    /**
     * PostgreSQL text cannot hold U+0000, which Valkey and the direct path accept: refused before
     * anything is written, like every other check.
     */
    public static void checkStorable(List<JobRequest> requests, boolean batch) {
        for (int i = 0; i < requests.size(); i++) {
            checkPayload(requests.get(i), batch ? "requests[" + i + "]." : "");
        }
    }

    private static void checkPayload(JobRequest request, String at) {
        if (request.payload().indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException(at + "payload: must not contain the character U+0000 when written inside a "
                    + "transaction (the outbox is a PostgreSQL text column)");
        }
    }
}
