package io.echomq.testkit.property;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * A property over random operation sequences: runs {@code count} seeded sequences, each on fresh
 * state, with the invariants checked after every step, and stops at the first that breaks one.
 *
 * <p>A failure is reported with the seed of its sequence and the shortest failing prefix of it:
 * prefixes of one step, two steps, … are run again, each on fresh state, and the first that
 * fails is shown step by step. {@code -Dechomq.property.seed=<seed>} replays a run: sequence 0
 * of a run is drawn from the base seed itself, so the seed printed for a failing sequence
 * replays that sequence first. Without it every run draws a fresh base seed and prints it.
 *
 * <pre>{@code
 * SequenceProperty property = SequenceProperty.of(getClass(), 1_000);
 * property.check(draw -> Scenario.of(draw.listOf(5, 30, MyTest::action)), setup -> new Model());
 * }</pre>
 */
public final class SequenceProperty {

    /** The system property that fixes the base seed of every property of the run. */
    public static final String SEED_PROPERTY = "echomq.property.seed";

    /*
     * Sequence i is drawn from baseSeed + i * SEED_STRIDE. The stride is odd and differs from
     * SplittableRandom's own increment (0x9E3779B97F4A7C15), so the streams of neighbouring
     * sequences do not overlap shifted by a step.
     */
    private static final long SEED_STRIDE = 0xD1B54A32D192ED03L;

    private final String name;
    private final int count;
    private final long baseSeed;
    private final PrintStream out;
    private long sequences;
    private long operations;
    private long violations;

    SequenceProperty(String name, int count, long baseSeed, PrintStream out) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        this.name = name;
        this.count = count;
        this.baseSeed = baseSeed;
        this.out = out;
    }

    /**
     * A property of {@code count} sequences named for the test class, on the base seed that
     * {@value #SEED_PROPERTY} gives or a fresh one; prints the base seed.
     */
    public static SequenceProperty of(Class<?> testClass, int count) {
        return of(testClass.getSimpleName(), count, System.getProperty(SEED_PROPERTY, ""), System.out);
    }

    static SequenceProperty of(String name, int count, String givenSeed, PrintStream out) {
        String given = givenSeed.trim();
        long baseSeed = given.isEmpty() ? ThreadLocalRandom.current().nextLong() : parseSeed(given);
        out.printf("%s: %s base seed=%d, %d sequences (replay: -D%s=%d)%n", name, given.isEmpty() ? "fresh" : "given", baseSeed,
                count, SEED_PROPERTY, baseSeed);
        return new SequenceProperty(name, count, baseSeed, out);
    }

    private static long parseSeed(String given) {
        try {
            return Long.parseLong(given);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SEED_PROPERTY + " must be a long, was '" + given + "'", e);
        }
    }

    /** Sequences run so far (not counting the runs of prefixes while shrinking). */
    public long sequences() {
        return sequences;
    }

    /** Steps that passed their invariants in those sequences. */
    public long operations() {
        return operations;
    }

    /** Sequences that broke an invariant: at most 1, since the property stops at the first. */
    public long violations() {
        return violations;
    }

    public long baseSeed() {
        return baseSeed;
    }

    /**
     * Runs the sequences the generator draws, each against a fresh subject made from the
     * sequence's setup.
     *
     * @throws AssertionError on the first sequence that breaks an invariant (or throws), naming
     *     its seed and the shortest failing prefix; its cause is that prefix's failure
     */
    public <S, A> void check(Function<Draw, Scenario<S, A>> generator, Function<S, ? extends Subject<A>> freshSubject) {
        for (int i = 0; i < count; i++) {
            long seed = baseSeed + i * SEED_STRIDE;
            Scenario<S, A> scenario = generator.apply(new Draw(new SplittableRandom(seed)));
            sequences++;
            Optional<Failure> failure = run(scenario, scenario.steps().size(), freshSubject, true);
            if (failure.isPresent()) {
                violations++;
                Prefix shortest = shortestFailingPrefix(scenario, failure.get(), freshSubject);
                AssertionError report = new AssertionError(report(i, seed, scenario, failure.get(), shortest), shortest.failure().cause());
                if (shortest.failure() != failure.get()) {
                    report.addSuppressed(failure.get().cause());
                }
                out.println(report.getMessage());
                throw report;
            }
        }
    }

    /** Runs the first {@code length} steps on a fresh subject; the failure, if a step broke an invariant. */
    private <S, A> Optional<Failure> run(Scenario<S, A> scenario, int length, Function<S, ? extends Subject<A>> freshSubject,
            boolean counted) {
        int step = -1;
        try (Subject<A> subject = freshSubject.apply(scenario.setup())) {
            for (step = 0; step < length; step++) {
                subject.apply(scenario.steps().get(step));
                if (counted) {
                    operations++;
                }
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(name + " interrupted", e);
        } catch (Exception | AssertionError e) {
            // step is -1 when the fresh subject could not be made: the setup alone fails. A close
            // that fails after the last step is counted against the last step.
            return Optional.of(new Failure(Math.min(step, length - 1), e));
        }
    }

    /**
     * The shortest prefix that fails on fresh state, trying lengths upwards; the prefix up to
     * the failing step when no shorter one fails again.
     */
    private <S, A> Prefix shortestFailingPrefix(Scenario<S, A> scenario, Failure failure,
            Function<S, ? extends Subject<A>> freshSubject) {
        int failingLength = failure.step() + 1;
        for (int length = 0; length < failingLength; length++) {
            Optional<Failure> shorter = run(scenario, length, freshSubject, false);
            if (shorter.isPresent()) {
                return new Prefix(length, shorter.get());
            }
        }
        return new Prefix(failingLength, failure);
    }

    private <S, A> String report(int index, long seed, Scenario<S, A> scenario, Failure failure, Prefix shortest) {
        StringBuilder report = new StringBuilder();
        report.append(String.format("%s: sequence %d of %d (seed=%d) failed at step %d of %d: %s%n", name, index + 1, count, seed,
                failure.step() + 1, scenario.steps().size(), firstLine(failure.cause())));
        report.append(String.format("shortest failing prefix: %d of %d steps (shrunk by prefix, each run on fresh state)%n",
                shortest.length(), scenario.steps().size()));
        if (scenario.setup() != null) {
            report.append("  setup: ").append(scenario.setup()).append(System.lineSeparator());
        }
        List<A> steps = scenario.steps().subList(0, shortest.length());
        for (int i = 0; i < steps.size(); i++) {
            report.append(String.format("  %d. %s%n", i + 1, steps.get(i)));
        }
        report.append(String.format("which fails with: %s%n", shortest.failure().cause()));
        report.append("replay: ").append(replayCommand(seed));
        return report.toString();
    }

    private static String firstLine(Throwable failure) {
        String text = String.valueOf(failure.getMessage()).strip();
        int end = text.indexOf('\n');
        return failure.getClass().getSimpleName() + " " + (end < 0 ? text : text.substring(0, end) + " …");
    }

    /** The build command that replays the sequence, naming the module surefire ran in. */
    private String replayCommand(long seed) {
        String module = moduleOfTheBuild().map(m -> " -pl " + m + " -am").orElse("");
        return String.format("CI=true mvn%s verify -Dtest=%s -D%s=%d -Dsurefire.failIfNoSpecifiedTests=false -DskipITs", module, name,
                SEED_PROPERTY, seed);
    }

    /** The module's folder relative to the top of the Maven build, from surefire's {@code basedir}. */
    private static Optional<String> moduleOfTheBuild() {
        String basedir = System.getProperty("basedir");
        if (basedir == null) {
            return Optional.empty();
        }
        Path module = Path.of(basedir).toAbsolutePath().normalize();
        Path top = module;
        while (top.getParent() != null && Files.exists(top.getParent().resolve("pom.xml"))) {
            top = top.getParent();
        }
        String relative = top.relativize(module).toString().replace('\\', '/');
        return relative.isEmpty() ? Optional.empty() : Optional.of(relative);
    }

    /**
     * One sequence as drawn: the setup its fresh state is made from ({@code null} when none, as
     * with {@link #of(List)}) and its steps.
     */
    public record Scenario<S, A>(S setup, List<A> steps) {
        public Scenario {
            steps = List.copyOf(steps);
        }

        public static <A> Scenario<Void, A> of(List<A> steps) {
            return new Scenario<>(null, steps);
        }
    }

    /** The system under test with its model, fresh for each run of a sequence or of a prefix. */
    @FunctionalInterface
    public interface Subject<A> extends AutoCloseable {

        /** Applies one step and checks the invariants after it: a broken one throws. */
        void apply(A step) throws Exception;

        /** Called after the last step, also after a failure. */
        @Override
        default void close() {
        }
    }

    /** A step that failed (-1: making the fresh subject failed) and why. */
    private record Failure(int step, Throwable cause) {
    }

    private record Prefix(int length, Failure failure) {
    }
}
