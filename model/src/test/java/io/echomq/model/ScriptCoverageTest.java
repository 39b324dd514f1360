package io.echomq.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every script of the catalog (lua/src/main/resources/io/echomq/lua) is either a step of the
 * delivery model, which names it, or listed here with the reason it is not: a new script fails
 * this test until someone decides which it is.
 */
class ScriptCoverageTest {

    /** The scripts the model has a step for, by file name. */
    static final Set<String> IN_THE_MODEL = Set.of(
            "enqueue-4.lua", "enqueue-batch-4.lua", "claim-4.lua", "complete-claim-6.lua", "complete-4.lua", "extend-2.lua",
            "retry-6.lua", "reap-4.lua", "stop-3.lua", "cancel-4.lua", "reconcile-6.lua", "requeue-3.lua", "reschedule-3.lua");

    /** The scripts that change nothing. */
    static final Set<String> READ_ONLY = Set.of("stats-7.lua", "schedules-due-1.lua");

    /** Not in the delivery model, because … */
    static final Map<String, String> NOT_IN_THE_MODEL = Map.ofEntries(
            Map.entry("schedule-fire-6.lua", "it makes jobs through enqueue_one, the model's enqueue step; the rest is the schedule's own hash"),
            Map.entry("schedule-put-2.lua", "it writes a schedule's definition, no job"),
            Map.entry("schedule-remove-2.lua", "it deletes a schedule, no job"),
            Map.entry("schedule-set-paused-2.lua", "it flags a schedule, no job"),
            Map.entry("set-limits-4.lua", "caps and rate limits only make a claim take fewer jobs or later, and the model's claim may "
                    + "already happen at any time or not yet"),
            Map.entry("set-paused-1.lua", "a paused queue only claims nothing, which the model's claim already may (a queue paused for "
                    + "ever never ends its jobs, by the operator's choice)"),
            Map.entry("trim-4.lua", "retention deletes finished jobs only, after bounds far longer than the reconciler's interval; "
                    + "a deleted job is out of the guarantee by the operator's settings"),
            Map.entry("remove-5.lua", "an operator deletes a finished job only, by choice"),
            Map.entry("maintenance-lease-2.lua", "it only chooses which engine runs the duties; the model's reaper and reconciler may "
                    + "already run at any time or not yet, and two at once are safe"),
            Map.entry("flow-add-5.lua", "it makes a flow's parent, waiting, and a leaf child by the rules of enqueue_one, the model's "
                    + "enqueue step; the flows' own protocol is proven by the flow properties of StateMachinePropertyTest and flow-kill-9"),
            Map.entry("flow-child-created-2.lua", "it marks a child made on its parent, no job's state"),
            Map.entry("flow-child-settled-5.lua", "it releases a waiting parent to pending (or dead) once every child's mark is in; "
                    + "a flow step, proven by the flow properties of StateMachinePropertyTest and flow-kill-9"),
            Map.entry("flow-notice-ack-2.lua", "it deletes a settlement notice the parent applied, no job"),
            Map.entry("flow-cancels-done-1.lua", "it clears a failed parent's list of children to cancel, no job"),
            Map.entry("set-events-2.lua", "it sets the cap of the queue's job-event stream, no job"),
            Map.entry("shard-layout-1.lua", "it records how a shard mints ids, and only while the shard holds no job"),
            Map.entry("shard-meta-5.lua", "it writes or copies a shard's pause, limits and event-stream cap, no job: as set-paused, "
                    + "set-limits and set-events, only making a claim take fewer jobs or later"),
            Map.entry("key-home-reserve-2.lua", "it records which shard of a sharded queue is a key's home, no job; that no key gets "
                    + "two jobs over the shards is proven by ShardedStateMachinePropertyTest and KeyHomesClusterTest"),
            Map.entry("key-home-confirm-1.lua", "it marks or deletes a key's home entry, no job"),
            Map.entry("key-home-release-1.lua", "it fences a key off a shard that holds nothing for it, no job"),
            Map.entry("key-home-floor-1.lua", "it replaces a shard's fences by a floor of tokens, no job"),
            Map.entry("schedule-home-3.lua", "it records which shard of a sharded queue holds a schedule, and a move of one between "
                    + "shards, no job"));

    private static final Pattern SCRIPT_NAME = Pattern.compile("[a-z][a-z-]*-\\d+\\.lua");

    @Test
    void everyScriptOfTheCatalogIsClassified() throws IOException {
        Set<String> catalog = catalog();
        Set<String> classified = new TreeSet<>(IN_THE_MODEL);
        classified.addAll(READ_ONLY);
        classified.addAll(NOT_IN_THE_MODEL.keySet());

        assertThat(catalog).as("scripts in the catalog that are neither in the delivery model nor listed as outside it")
                .isSubsetOf(classified);
        assertThat(classified).as("classified scripts that are not in the catalog (renamed or removed?)").isSubsetOf(catalog);
    }

    @Test
    void theModelNamesEveryScriptItStandsFor() throws IOException {
        String model = Files.readString(Path.of(System.getProperty("echomq.model.file")));
        for (String script : IN_THE_MODEL) {
            assertThat(model).as("the model names %s at the step that stands for it", script).contains(script);
        }
    }

    @Test
    void theModelNamesNoScriptOutsideIt() throws IOException {
        Matcher named = SCRIPT_NAME.matcher(Files.readString(Path.of(System.getProperty("echomq.model.file"))));
        Set<String> names = new TreeSet<>();
        while (named.find()) {
            names.add(named.group());
        }
        assertThat(names).as("scripts the model names (an old name, or one not in the model)").isSubsetOf(IN_THE_MODEL);
    }

    /** The catalog's scripts by file name. */
    private static Set<String> catalog() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("echomq.model.scripts")))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
