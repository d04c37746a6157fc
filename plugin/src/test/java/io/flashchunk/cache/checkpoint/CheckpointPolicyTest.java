package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.checkpoint.CheckpointPolicy.Attempt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When checkpoints are due, on an injected clock: changes, the interval, early requests, failures. */
class CheckpointPolicyTest {
    private static final long INTERVAL = TimeUnit.SECONDS.toNanos(300);
    private static final long MIN_INTERVAL = TimeUnit.SECONDS.toNanos(10);

    private long now = 1_000_000;

    private CheckpointPolicy policy(double changeShare) {
        return new CheckpointPolicy(INTERVAL, MIN_INTERVAL, changeShare, () -> now, 0);
    }

    private void advance(long nanos) {
        now += nanos;
    }

    @Test
    void anIndexThatDidNotChangeIsNeverCheckpointed() {
        CheckpointPolicy policy = policy(0.1);
        advance(10 * INTERVAL);
        assertFalse(policy.due(0, 1_000));
    }

    @Test
    void aTenthOfTheChunksChangedIsDueAfterTheMinimumInterval() {
        CheckpointPolicy policy = policy(0.1);
        advance(MIN_INTERVAL - 1);
        assertFalse(policy.due(500, 1_000), "not before the minimum interval");
        advance(1);
        assertFalse(policy.due(99, 1_000), "99 changes are less than a tenth of 1,000 chunks");
        assertTrue(policy.due(100, 1_000));
    }

    @Test
    void fewerChangesWaitForTheInterval() {
        CheckpointPolicy policy = policy(0.1);
        advance(INTERVAL - 1);
        assertFalse(policy.due(1, 1_000));
        advance(1);
        assertTrue(policy.due(1, 1_000));
    }

    @Test
    void theFirstChunksOfAnEmptyCacheAreDue() {
        CheckpointPolicy policy = policy(0.1);
        advance(MIN_INTERVAL);
        assertTrue(policy.due(1, 0));
    }

    @Test
    void aDurableCheckpointCoversTheChangesUpToItsStart() {
        CheckpointPolicy policy = policy(0.1);
        advance(MIN_INTERVAL);
        Attempt attempt = policy.start(100);
        policy.finished(attempt, true);
        advance(MIN_INTERVAL);
        assertFalse(policy.due(100, 1_000), "nothing changed since");
        assertFalse(policy.due(199, 1_000));
        assertTrue(policy.due(200, 1_000), "changes made while it ran count for the next one");
    }

    @Test
    void whatACrashWouldRiskIsTheChangesSinceTheLastDurableCheckpoint() {
        CheckpointPolicy policy = policy(0.1);
        assertEquals(40, policy.changesSince(40));
        advance(MIN_INTERVAL);
        Attempt attempt = policy.start(30);
        assertEquals(40, policy.changesSince(40), "not covered before it is durable");
        policy.finished(attempt, true);
        assertEquals(10, policy.changesSince(40));
    }

    @Test
    void aFailedCheckpointCoversNothingAndItsRetryIsPaced() {
        CheckpointPolicy policy = policy(0.1);
        advance(MIN_INTERVAL);
        policy.finished(policy.start(100), false);
        assertFalse(policy.due(100, 1_000), "the retry waits for the minimum interval");
        advance(MIN_INTERVAL);
        assertTrue(policy.due(100, 1_000), "the same changes are still due");
    }

    @Test
    void failuresInARowBackOffUpToTheIntervalAndASuccessResetsThem() {
        CheckpointPolicy policy = new CheckpointPolicy(INTERVAL, 0, 0.1, () -> now, 0);
        long second = TimeUnit.SECONDS.toNanos(1);
        long[] waits = {second, 2 * second, 4 * second};
        for (long wait : waits) {
            policy.finished(policy.start(100), false);
            advance(wait - 1);
            assertFalse(policy.due(100, 1_000), "a failing device is not retried before " + wait + " ns");
            advance(1);
            assertTrue(policy.due(100, 1_000));
        }
        for (int i = 0; i < 20; i++) {
            policy.finished(policy.start(100), false);
        }
        advance(INTERVAL);
        assertTrue(policy.due(100, 1_000), "never more than the interval apart");
        policy.finished(policy.start(100), true);
        advance(0);
        assertTrue(policy.due(300, 1_000), "after a success, changes are due again at once (no minimum here)");
    }

    @Test
    void anEarlyRequestIsDueAfterTheMinimumIntervalAndSurvivesAFailure() {
        CheckpointPolicy policy = policy(0.1);
        policy.requestEarly();
        assertFalse(policy.due(0, 1_000));
        advance(MIN_INTERVAL);
        assertTrue(policy.due(0, 1_000));
        policy.finished(policy.start(0), false);
        advance(MIN_INTERVAL);
        assertTrue(policy.due(0, 1_000), "the request stands after a failed attempt");
        policy.finished(policy.start(0), true);
        advance(MIN_INTERVAL);
        assertFalse(policy.due(0, 1_000), "a durable checkpoint answered it");
    }

    @Test
    void withoutAChangeShareOnlyTheIntervalCounts() {
        CheckpointPolicy policy = policy(0);
        advance(MIN_INTERVAL);
        assertFalse(policy.due(1_000_000, 10));
        advance(INTERVAL);
        assertTrue(policy.due(1_000_000, 10));
    }

    @Test
    void changesBeforeStartUpAreCovered() {
        CheckpointPolicy policy = new CheckpointPolicy(INTERVAL, MIN_INTERVAL, 0.1, () -> now, 5_000);
        advance(INTERVAL);
        assertFalse(policy.due(5_000, 1_000));
        assertTrue(policy.due(5_001, 1_000));
    }

    @Test
    void badSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CheckpointPolicy(0, 0, 0.1, () -> now, 0));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointPolicy(INTERVAL, -1, 0.1, () -> now, 0));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointPolicy(INTERVAL, 0, 1.5, () -> now, 0));
    }
}
