package io.echomq.testkit.property;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The choices a generator makes for one sequence, all from one seeded random source: the same
 * seed gives the same draws in the same order, so a sequence is replayed from its seed alone.
 *
 * <p>A generator is a {@code Function<Draw, T>}, usually a static method of the test
 * ({@code static Claim claim(Draw draw)}), so generators compose with {@link #oneOf},
 * {@link #weighted} and {@link #listOf}.
 */
public final class Draw {

    private final RandomGenerator random;

    public Draw(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
    }

    /** An int from {@code min} to {@code max}, both included. */
    public int between(int min, int max) {
        if (max < min) {
            throw new IllegalArgumentException("max " + max + " is below min " + min);
        }
        return random.nextInt(min, max + 1);
    }

    /** One of the values, each equally likely (repeat a value to weigh it). */
    @SafeVarargs
    public final <T> T pick(T... values) {
        return pick(List.of(values));
    }

    /** One of the values, each equally likely. */
    public <T> T pick(List<T> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("nothing to pick from");
        }
        return values.get(random.nextInt(values.size()));
    }

    /** A value from one of the generators, each equally likely. */
    @SafeVarargs
    public final <T> T oneOf(Function<Draw, ? extends T>... generators) {
        return pick(generators).apply(this);
    }

    /** A value from one of the generators, each chosen in proportion to its weight. */
    @SafeVarargs
    public final <T> T weighted(Weighted<? extends T>... choices) {
        int total = 0;
        for (Weighted<? extends T> choice : choices) {
            total += choice.weight();
        }
        if (total == 0) {
            throw new IllegalArgumentException("nothing to choose from");
        }
        int ticket = random.nextInt(total);
        for (Weighted<? extends T> choice : choices) {
            ticket -= choice.weight();
            if (ticket < 0) {
                return choice.generator().apply(this);
            }
        }
        throw new AssertionError("the tickets add up to the total weight");
    }

    /** A list of {@code minSize} to {@code maxSize} values of the generator. */
    public <T> List<T> listOf(int minSize, int maxSize, Function<Draw, ? extends T> generator) {
        int size = between(minSize, maxSize);
        List<T> values = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            values.add(generator.apply(this));
        }
        return List.copyOf(values);
    }

    /** A generator with its weight, for {@link #weighted}. */
    public static <T> Weighted<T> weight(int weight, Function<Draw, ? extends T> generator) {
        return new Weighted<>(weight, generator);
    }

    /** A generator chosen in proportion to {@code weight} among the others of a {@link #weighted} draw. */
    public record Weighted<T>(int weight, Function<Draw, ? extends T> generator) {
        public Weighted {
            if (weight < 0) {
                throw new IllegalArgumentException("weight must not be negative: " + weight);
            }
            Objects.requireNonNull(generator, "generator");
        }
    }
}
