package io.echomq.handler;

/**
 * A handler that brings tables of its own: before its queue's worker starts, the engine applies
 * the handler's Flyway SQL migrations to the engine's database, with a history of their own in
 * schema {@code echomq}. The scripts are listed, oldest first, in a {@code migrations.index} file
 * in their class-path folder (one file name a line), so no server has to list a folder inside a
 * jar. A handler switched off (see {@link HandlesQueue#enabledBy()}) brings no tables.
 */
public interface HandlerSchema {

    /** The class-path folder of the scripts and their {@code migrations.index}, e.g. {@code com/example/orders/db}. */
    String migrationFolder();

    /** The table, in schema {@code echomq}, that records which of them ran; one per handler schema. */
    String migrationHistoryTable();
}
