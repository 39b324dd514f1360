package io.echomq.queue;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An enum whose constants have names outside Java: in configuration, the HTTP API, the scripts
 * and Valkey. One rule names them all, the constant in lower case with its words joined by
 * {@code -} ({@code RUN_ONCE} is {@code run-once}), so a stored or sent name cannot drift from
 * the constant it stands for.
 */
public interface WireName {

    /** The constant's Java name ({@link Enum#name()}). */
    String name();

    /** The constant's name outside Java, e.g. {@code "pending"}, {@code "run-once"}. */
    default String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} named {@code wireName} on the wire, if any. */
    static <E extends Enum<E> & WireName> Optional<E> find(Class<E> type, String wireName) {
        return Arrays.stream(type.getEnumConstants()).filter(c -> c.wireName().equals(wireName)).findFirst();
    }

    /** Every wire name of {@code type}, in declaration order (for messages that list the choices). */
    static <E extends Enum<E> & WireName> List<String> all(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(WireName::wireName).toList();
    }
}
