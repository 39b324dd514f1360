package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Binds a JSON body, as JSON-P read it, to the API's request records: the one place that decides
 * what JSON each Java type takes, so that a value of the wrong kind is refused with an
 * {@link InvalidRequestException} naming its field by its path in the body ({@code maxAttempts},
 * {@code dedupe.windowMs}, {@code jobs[3].runAt}; the body itself is {@code body}) and saying
 * what the field takes. A field's name is its record component's name, as JSON-B writes it.
 *
 * <p>What each type takes: {@code String}, a JSON string; {@code Integer}, {@code Long}, a whole
 * number within the type's range ({@code 5.0} is 5, {@code 2.5} is refused, a number is never
 * wrapped or rounded); {@code Instant}, an ISO-8601 instant ({@code 2027-01-01T00:00:00Z}, or with
 * an offset) or a whole number of milliseconds since the epoch; {@link JsonValue}, anything; a
 * record, an object of its fields; a {@code List}, an array. JSON null is an absent field; a field
 * of a primitive type is required, and a list holds no nulls. What a value may be beyond its kind
 * (a range, a name's characters) is the engine's to check. A record's own constructor may refuse
 * a field, naming it relative to the record; the binder puts the record's path in front.
 *
 * <p>A record annotated {@link KnownFieldsOnly} refuses a field it does not have; others pass
 * unknown fields over (a schedule as GET answers it can be PUT back).
 */
final class BodyBinding {

    /** What a refusal calls the body itself when the resource gives it no name. */
    static final String BODY = "body";

    private static final int SHOWN_CHARS = 40;

    private static final ClassValue<RecordShape> SHAPES = new ClassValue<>() {
        @Override
        protected RecordShape computeValue(Class<?> type) {
            return RecordShape.of(type);
        }
    };

    private BodyBinding() {
    }

    /** Whether this binds bodies of that type: a record, or a list of records. */
    static boolean binds(Type type) {
        Class<?> raw = rawClass(type);
        return raw.isRecord() || raw == List.class && type instanceof ParameterizedType && rawClass(elementType(type)).isRecord();
    }

    /**
     * The body as {@code type}, or null for a JSON null. {@code name} is what a refusal calls the
     * body itself and the root of an array's elements ({@code jobs}: {@code jobs[0].lane}); an
     * object's fields are named from the top ({@code lane}).
     */
    static Object bind(JsonValue body, Type type, String name) {
        return value(body, type, new Path(name, ""));
    }

    static <T> T bind(JsonValue body, Class<T> type) {
        return type.cast(bind(body, type, BODY));
    }

    /** Where a value is: its name in refusals, and the prefix its own fields get. */
    private record Path(String name, String prefix) {

        Path field(String field) {
            return new Path(prefix + field, prefix + field + ".");
        }

        Path element(int index) {
            String at = name + "[" + index + "]";
            return new Path(at, at + ".");
        }
    }

    private static Object value(JsonValue value, Type type, Path at) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        Class<?> raw = rawClass(type);
        if (raw == JsonValue.class) {
            return value;
        }
        if (raw == String.class) {
            if (value instanceof JsonString text) {
                return text.getString();
            }
            throw refused(at, type, value);
        }
        if (raw == Integer.class || raw == int.class) {
            return (int) wholeNumber(value, at, type, Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        if (raw == Long.class || raw == long.class) {
            return wholeNumber(value, at, type, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        if (raw == Instant.class) {
            return instant(value, at);
        }
        if (raw == List.class) {
            return list(value, type, at);
        }
        if (raw.isRecord()) {
            return record(value, SHAPES.get(raw), at);
        }
        throw new IllegalArgumentException("no JSON binding for " + type + " (at " + at.name() + ")");
    }

    /** Exact: a number such as {@code 1e999} is refused, never wrapped to 0 or rounded. */
    private static long wholeNumber(JsonValue value, Path at, Type type, long min, long max) {
        if (!(value instanceof JsonNumber number)) {
            throw refused(at, type, value);
        }
        BigDecimal exact;
        try {
            exact = number.bigDecimalValue();
        } catch (NumberFormatException beyondBigDecimal) {
            throw refused(at, type, value);
        }
        // More than 19 digits before the point is beyond a long: judged before anything scales with the exponent (1e999999).
        boolean inRange = exact.signum() == 0 || exact.precision() - exact.scale() <= 19;
        BigDecimal whole = inRange ? exact.stripTrailingZeros() : exact;
        if (inRange && whole.scale() > 0) {
            throw refused(at, type, value);
        }
        if (!inRange || whole.compareTo(BigDecimal.valueOf(min)) < 0 || whole.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw new InvalidRequestException(at.name(), "must be a whole number from " + min + " to " + max + ", was " + shown(value));
        }
        return whole.longValueExact();
    }

    private static Instant instant(JsonValue value, Path at) {
        if (value instanceof JsonNumber) {
            return Instant.ofEpochMilli(wholeNumber(value, at, Instant.class, Long.MIN_VALUE, Long.MAX_VALUE));
        }
        if (value instanceof JsonString text) {
            try {
                return Instant.parse(text.getString());
            } catch (DateTimeParseException e) {
                throw refused(at, Instant.class, value);
            }
        }
        throw refused(at, Instant.class, value);
    }

    private static List<Object> list(JsonValue value, Type type, Path at) {
        if (value.getValueType() != JsonValue.ValueType.ARRAY) {
            throw refused(at, type, value);
        }
        Type elementType = elementType(type);
        List<JsonValue> array = value.asJsonArray();
        List<Object> elements = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            Path element = at.element(i);
            Object bound = value(array.get(i), elementType, element);
            if (bound == null) {
                throw new InvalidRequestException(element.name(), "is required: " + accepts(elementType));
            }
            elements.add(bound);
        }
        return Collections.unmodifiableList(elements);
    }

    private static Object record(JsonValue value, RecordShape shape, Path at) {
        if (!(value instanceof JsonObject object)) {
            throw refused(at, shape.type(), value);
        }
        if (shape.knownFieldsOnly()) {
            for (String name : object.keySet()) {
                if (!shape.names().contains(name)) {
                    throw new InvalidRequestException(at.field(name).name(), "is not a field here; the fields are "
                            + String.join(", ", shape.names()));
                }
            }
        }
        Object[] fields = new Object[shape.components().length];
        for (int i = 0; i < fields.length; i++) {
            RecordComponent component = shape.components()[i];
            Path field = at.field(component.getName());
            fields[i] = value(object.get(component.getName()), component.getGenericType(), field);
            if (fields[i] == null && component.getType().isPrimitive()) {
                throw new InvalidRequestException(field.name(), "is required: " + accepts(component.getGenericType()));
            }
        }
        return shape.create(fields, at);
    }

    private static InvalidRequestException refused(Path at, Type type, JsonValue value) {
        return new InvalidRequestException(at.name(), "must be " + accepts(type) + ", was " + shown(value));
    }

    /** What a type takes, as a refusal says it. */
    private static String accepts(Type type) {
        Class<?> raw = rawClass(type);
        if (raw == String.class) {
            return "a string";
        }
        if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class) {
            return "a whole number";
        }
        if (raw == Instant.class) {
            return "an ISO-8601 instant such as \"2027-01-01T00:00:00Z\" or a whole number of milliseconds since the epoch";
        }
        if (raw == List.class) {
            return "an array, each " + accepts(elementType(type));
        }
        if (raw.isRecord()) {
            return "an object {" + String.join(", ", SHAPES.get(raw).names()) + "}";
        }
        return "any JSON value";
    }

    /** A refused value as the refusal quotes it: a scalar as JSON (escaped, cut short), an object or array by its kind. */
    private static String shown(JsonValue value) {
        return switch (value.getValueType()) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            default -> {
                String json = value.toString();
                yield json.length() > SHOWN_CHARS ? json.substring(0, SHOWN_CHARS) + "…" : json;
            }
        };
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        return Object.class;
    }

    private static Type elementType(Type listType) {
        return listType instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
    }

    /** A record type's fields in order and its canonical constructor, looked up once per type. */
    private record RecordShape(Class<?> type, RecordComponent[] components, List<String> names, Constructor<?> constructor,
            boolean knownFieldsOnly) {

        static RecordShape of(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            try {
                Constructor<?> constructor = type.getDeclaredConstructor(
                        Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
                return new RecordShape(type, components, Arrays.stream(components).map(RecordComponent::getName)
                        .collect(Collectors.toUnmodifiableList()), constructor, type.isAnnotationPresent(KnownFieldsOnly.class));
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("a record without its canonical constructor: " + type, e);
            }
        }

        /** The record; a field its constructor refuses is named at the record's path. */
        Object create(Object[] fields, Path at) {
            try {
                return constructor.newInstance(fields);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof InvalidRequestException refused) {
                    throw new InvalidRequestException(at.field(refused.field()).name(),
                            refused.getMessage().substring(refused.field().length() + 2));
                }
                throw new IllegalStateException("could not create " + type.getSimpleName(), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("could not create " + type.getSimpleName(), e);
            }
        }
    }
}
