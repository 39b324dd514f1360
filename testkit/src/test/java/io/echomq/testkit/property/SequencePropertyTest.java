package io.echomq.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.property.SequenceProperty.Scenario;
import io.echomq.testkit.property.SequenceProperty.Subject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SequencePropertyTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    /** Sequences of 5 to 30 digits. */
    private static final Function<Draw, Scenario<Void, Integer>> DIGITS = draw -> Scenario.of(draw.listOf(5, 30, d -> d.between(0, 9)));

    private SequenceProperty property(int count, long seed) {
        return new SequenceProperty("DigitsProperty", count, seed, out);
    }

    /** Runs a passing property and returns every sequence it was given, in order. */
    private List<List<Integer>> sequencesOf(long seed) {
        List<List<Integer>> seen = new ArrayList<>();
        property(20, seed).check(DIGITS, none -> {
            List<Integer> steps = new ArrayList<>();
            seen.add(steps);
            return steps::add;
        });
        return seen;
    }

    @Test
    void theSameBaseSeedDrawsTheSameSequences() {
        assertThat(sequencesOf(42)).isEqualTo(sequencesOf(42)).isNotEqualTo(sequencesOf(43)).hasSize(20);
    }

    @Test
    void aPassingPropertyCountsItsSequencesAndOperations() {
        SequenceProperty property = property(50, 7);
        AtomicInteger steps = new AtomicInteger();
        property.check(DIGITS, none -> digit -> steps.incrementAndGet());

        assertThat(property.sequences()).isEqualTo(50);
        assertThat(property.operations()).isEqualTo(steps.get()).isBetween(50L * 5, 50L * 30);
        assertThat(property.violations()).isZero();
    }

    @Test
    void aFailureNamesItsSeedTheStepsOfTheFailingPrefixAndTheReplayCommand() {
        SequenceProperty property = property(1_000, 1);

        AssertionError failure = catchFailure(() -> property.check(DIGITS, none -> digit -> assertThat(digit).as("a digit").isNotEqualTo(7)));

        String report = failure.getMessage();
        long seed = seedIn(report);
        assertThat(report).containsPattern("DigitsProperty: sequence \\d+ of 1000 \\(seed=-?\\d+\\) failed at step \\d+ of \\d+")
                .containsPattern("shortest failing prefix: \\d+ of \\d+ steps")
                .contains("-Dtest=DigitsProperty -Dechomq.property.seed=" + seed);
        assertThat(stepsIn(report).get(stepsIn(report).size() - 1)).as("the prefix ends at the step that fails").endsWith(". 7");
        assertThat(stepsIn(report).subList(0, stepsIn(report).size() - 1)).as("no earlier step fails").noneMatch(step -> step.endsWith(". 7"));
        assertThat(failure.getCause()).hasMessageContaining("a digit");
        assertThat(printed.toString(StandardCharsets.UTF_8)).as("the report is printed too").contains(report);
        assertThat(property.violations()).isEqualTo(1);
    }

    @Test
    void theShrunkPrefixIsShorterThanTheFirstFailureWhenAShorterOneFails() {
        AtomicInteger runs = new AtomicInteger();
        // Digits 0..9: fails on the first run only from step 6, on later runs at the first 7 anywhere.
        Function<Draw, Scenario<Void, Integer>> sevenEarly = draw -> Scenario.of(List.of(1, 7, 2, 3, 4, 5, 7, 8));

        assertThatThrownBy(() -> property(1, 9).check(sevenEarly, none -> {
            boolean firstRun = runs.incrementAndGet() == 1;
            AtomicInteger step = new AtomicInteger();
            return digit -> {
                int index = step.getAndIncrement();
                assertThat(firstRun && index < 5 ? 0 : digit).isNotEqualTo(7);
            };
        })).hasMessageContaining("failed at step 7 of 8").hasMessageContaining("shortest failing prefix: 2 of 8 steps")
                .hasMessageContaining("  1. 1\n  2. 7\nwhich fails with");
    }

    @Test
    void theSeedOfAFailingSequenceReplaysItFirst() {
        Subject<Integer> noSevens = digit -> assertThat(digit).isNotEqualTo(7);
        AssertionError first = catchFailure(() -> property(1_000, 3).check(DIGITS, none -> noSevens));
        long seed = seedIn(first.getMessage());

        AssertionError replay = catchFailure(() -> property(1_000, seed).check(DIGITS, none -> noSevens));

        assertThat(replay.getMessage()).contains("sequence 1 of 1000 (seed=" + seed + ")");
        assertThat(stepsIn(replay.getMessage())).isEqualTo(stepsIn(first.getMessage()));
    }

    @Test
    void theSetupIsShownAndFreshStateIsMadeFromItForEveryRun() {
        List<String> setups = new ArrayList<>();
        Function<Draw, Scenario<String, Integer>> withSetup = draw -> new Scenario<>("interval=" + draw.pick(15, 40),
                draw.listOf(5, 5, d -> 7));

        AssertionError failure = catchFailure(() -> property(1, 5).check(withSetup, setup -> {
            setups.add(setup);
            return digit -> assertThat(digit).isNotEqualTo(7);
        }));

        assertThat(failure.getMessage()).containsPattern("  setup: interval=(15|40)\n  1. 7\nwhich fails");
        assertThat(setups).as("the sequence, then the prefix of length 0 (the setup alone)").hasSize(2).containsOnly(setups.get(0));
    }

    @Test
    void aGivenSeedFixesTheBaseSeedAndIsPrinted() {
        assertThat(SequenceProperty.of("DigitsProperty", 1, " -12345 ", out).baseSeed()).isEqualTo(-12345);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .isEqualTo("DigitsProperty: given base seed=-12345, 1 sequences (replay: -Dechomq.property.seed=-12345)\n");
    }

    @Test
    void withoutASeedEachRunDrawsAFreshOneAndPrintsIt() {
        long first = SequenceProperty.of("DigitsProperty", 1, "", out).baseSeed();
        long second = SequenceProperty.of("DigitsProperty", 1, "", out).baseSeed();

        assertThat(first).isNotEqualTo(second);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("fresh base seed=" + first, "fresh base seed=" + second);
    }

    @Test
    void aSeedThatIsNoNumberIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> SequenceProperty.of("DigitsProperty", 1, "abc", out))
                .hasMessageContaining("echomq.property.seed must be a long, was 'abc'");
    }

    private static AssertionError catchFailure(Runnable check) {
        try {
            check.run();
        } catch (AssertionError failure) {
            return failure;
        }
        throw new AssertionError("the property did not fail");
    }

    private static long seedIn(String report) {
        Matcher seed = Pattern.compile("\\(seed=(-?\\d+)\\)").matcher(report);
        assertThat(seed.find()).isTrue();
        return Long.parseLong(seed.group(1));
    }

    private static List<String> stepsIn(String report) {
        return report.lines().filter(line -> line.matches("  \\d+\\. .*")).toList();
    }
}
