package io.echomq.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.services.RequiredTool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The delivery protocol's model ({@code model/delivery.pml}) checked by Spin in every
 * interleaving: the safety properties in one exhaustive run, the liveness properties in one
 * search for acceptance cycles, and each mutant of the model (a check removed) must be caught
 * with a counterexample trail. Prints one {@code model: property=…} line per property and one {@code model: mutant=…}
 * line per mutant. The runs share two threads, so the whole check uses two cores.
 */
class DeliveryModelTest {

    /** The safety properties: an assertion on one flag of the model each, all checked in the one safety run. */
    enum Safety {
        EFFECT_AT_MOST_ONCE("effect-at-most-once", "badEffect"),
        LEAVES_ACTIVE_FENCED("leaves-active-fenced", "badLeave"),
        COMPLETED_HAS_EFFECT("completed-has-effect", "badCompleted"),
        ONE_STATE("one-state", "badState"),
        STALE_NEVER_SETTLES("stale-never-settles", "badStale"),
        /** pan's own check of every end state: each process at rest (a label starting with end), none stuck. */
        NO_STUCK_RUN("no-stuck-run", "invalid end state");

        final String line;
        final String violation;

        Safety(String line, String violation) {
            this.line = line;
            this.violation = violation;
        }
    }

    /**
     * The liveness properties, checked together for acceptance cycles in one run of the model's
     * formula {@code jobs_end}, their conjunction (the model also has each alone, for runs by hand).
     */
    enum Liveness {
        COMMITTED_ENDS_COMPLETED("committed-ends-completed"),
        EVERY_JOB_ENDS("every-job-ends");

        final String line;

        Liveness(String line) {
            this.line = line;
        }
    }

    private static final String LIVENESS_FORMULA = "jobs_end";

    /** The model with one check removed, and whether the liveness run (else the safety run) must find the hole. */
    enum Mutant {
        NO_TOKEN_CHECK("no-token-check", "-DNO_TOKEN_CHECK", false),
        NO_CREATED_CHECK("no-created-check", "-DNO_CREATED_CHECK", false),
        NO_RECONCILER("no-reconciler", "-DNO_RECONCILER", true);

        final String line;
        final String define;
        final boolean liveness;

        Mutant(String line, String define, boolean liveness) {
            this.line = line;
            this.define = define;
            this.liveness = liveness;
        }
    }

    private static final int CORES = 2;

    private static ExecutorService threads;
    private static CompletableFuture<PanResult> safety;
    private static CompletableFuture<PanResult> liveness;
    private static final Map<Mutant, CompletableFuture<PanResult>> mutants = new EnumMap<>(Mutant.class);

    @BeforeAll
    static void startEveryRun() {
        RequiredTool.require(Spin.installed(), "spin is not installed (Debian: apt-get install spin); the delivery model cannot be checked");
        Spin spin = new Spin(Path.of(System.getProperty("echomq.model.file")), Path.of(System.getProperty("echomq.model.work")));
        threads = Executors.newFixedThreadPool(CORES);
        // The longest runs first, so that the two threads finish together.
        liveness = CompletableFuture.supplyAsync(() -> spin.build("liveness", List.of(), true), threads)
                .thenApplyAsync(folder -> spin.run(folder, List.of("-a", "-N", LIVENESS_FORMULA), "pan.log"), threads);
        safety = CompletableFuture.supplyAsync(() -> spin.build("safety", List.of(), false), threads)
                .thenApplyAsync(folder -> spin.run(folder, List.of(), "pan.log"), threads);
        for (Mutant mutant : Mutant.values()) {
            mutants.put(mutant, CompletableFuture.supplyAsync(
                    () -> spin.build(mutant.line, List.of(mutant.define), mutant.liveness), threads)
                    .thenApplyAsync(folder -> spin.run(folder, mutant.liveness ? List.of("-a", "-N", LIVENESS_FORMULA) : List.of(),
                            "pan.log"), threads));
        }
    }

    @AfterAll
    static void stopThreads() {
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    @Test
    void everySafetyPropertyHoldsInEveryInterleaving() {
        PanResult run = safety.join();
        List<String> broken = new ArrayList<>();
        for (Safety property : Safety.values()) {
            boolean violated = run.violation().filter(property.violation::equals).isPresent();
            System.out.printf("model: property=%s states=%d errors=%d run=safety ms=%d%n", property.line, run.states(),
                    violated ? run.errors() : 0, run.millis());
            if (violated) {
                broken.add(property.line);
            }
        }
        assertThat(run.errors()).as("the safety run found %s; replay the trail: %s\n%s", broken.isEmpty() ? run.violation() : broken,
                replay(run), run.output()).isZero();
        assertThat(run.exhaustive()).as("the search was cut short:\n%s", run.output()).isTrue();
    }

    @Test
    void everyJobEndsAndEveryAppliedOneCompletedOnEveryRun() {
        PanResult run = liveness.join();
        for (Liveness property : Liveness.values()) {
            System.out.printf("model: property=%s states=%d errors=%d run=acceptance-cycles ms=%d%n", property.line, run.states(),
                    run.errors(), run.millis());
        }
        assertThat(run.errors()).as("a job does not end, or ends other than completed with its effect committed (%s); "
                + "replay the trail: %s\n%s", run.violation().orElse("?"), replay(run), run.output()).isZero();
        assertThat(run.exhaustive()).as("the search was cut short:\n%s", run.output()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Mutant.class)
    void mutantIsCaughtWithACounterexampleTrail(Mutant mutant) {
        PanResult run = mutants.get(mutant).join();
        String found = run.violation().map(DeliveryModelTest::propertyOf).orElse("none");
        System.out.printf("model: mutant=%s errors=%d %s property=%s states=%d trail=%s%n", mutant.line, run.errors(),
                run.errors() > 0 ? "(expected)" : "(NOT CAUGHT)", found, run.states(),
                run.trail().map(Path::toString).orElse("none"));
        assertThat(run.errors()).as("Spin did not catch the mutant %s:\n%s", mutant.line, run.output()).isPositive();
        assertThat(run.trail()).as("the counterexample trail of %s", mutant.line).isPresent();
        if (mutant.liveness) {
            assertThat(run.violation()).as("the counterexample of %s", mutant.line).contains("acceptance cycle");
        }
    }

    /** The property a violation stands for, as the lines name it. */
    private static String propertyOf(String violation) {
        for (Safety property : Safety.values()) {
            if (property.violation.equals(violation)) {
                return property.line;
            }
        }
        return violation;
    }

    /** The command that replays a run's counterexample step by step (Spin finds the claim in the trail). */
    private static String replay(PanResult run) {
        Optional<Path> trail = run.trail();
        return trail.map(t -> "cd " + t.getParent() + " && spin -t -p -g delivery.pml").orElse("(no trail)");
    }
}
