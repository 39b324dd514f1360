package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An earlier attempt of a job, paused mid-transaction: it holds the job's effect key in an open
 * transaction until let go, then fails and rolls back, freeing the key for the next attempt.
 */
final class ZombieHoldingKey {

    private static final Duration LONGEST_HOLD = Duration.ofSeconds(60);

    private final CountDownLatch letGo = new CountDownLatch(1);
    private final CompletableFuture<EffectOutcome> effect;

    private ZombieHoldingKey(Engine engine, ClaimedJob zombie, CountDownLatch holding) {
        effect = CompletableFuture.supplyAsync(() -> engine.effects.apply(zombie.lease(), tx -> {
            holding.countDown();
            letGo.await(LONGEST_HOLD.toMillis(), TimeUnit.MILLISECONDS);
            throw new IllegalStateException("the zombie's connection breaks");
        }));
    }

    /** Starts the zombie's transaction on {@code zombie}'s lease and returns once it holds the key. */
    static ZombieHoldingKey holding(Engine engine, ClaimedJob zombie) throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        ZombieHoldingKey held = new ZombieHoldingKey(engine, zombie, holding);
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("the zombie holds the key").isTrue();
        return held;
    }

    /** Ends the zombie's transaction, rolled back, and waits until the key is free. */
    void letGo() {
        letGo.countDown();
        assertThat(effect).failsWithin(10, TimeUnit.SECONDS);
    }
}
