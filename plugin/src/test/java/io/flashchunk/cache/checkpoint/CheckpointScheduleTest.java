package io.flashchunk.cache.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.format.DeltaHeader;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CheckpointScheduleTest {
    private static final int EVERY = 4;
    private static final long INTERVAL = 60_000;
    private static final long SEGMENT = 16 << 20;
    private static final long CHUNK = 16 << 10;

    private final AtomicLong clock = new AtomicLong(1_000);

    private CheckpointSchedule schedule(long recoveredBytes) {
        return new CheckpointSchedule(EVERY, INTERVAL, SEGMENT, recoveredBytes, clock::get);
    }

    @Test
    void byCountEverySoManySegmentsFromTheLastTryOrCheckpoint() {
        CheckpointSchedule schedule = schedule(0);
        assertFalse(schedule.dueByCount(EVERY - 1));
        assertTrue(schedule.dueByCount(EVERY));
        schedule.tried(EVERY);
        assertFalse(schedule.dueByCount(EVERY + 1), "a try restarts the count, failed or not");
        schedule.written(clock.get(), EVERY + 2, 0, 0, 100, false);
        assertFalse(schedule.dueByCount(EVERY + 2 + EVERY - 1), "any checkpoint restarts it too");
        assertTrue(schedule.dueByCount(EVERY + 2 + EVERY));
    }

    @Test
    void forDeadSpaceOnceTheSegmentsWaitingOutweighADeltaAndItsShareOfAFullCheckpointAndTheSpacingPassed() {
        CheckpointSchedule schedule = schedule(0);
        long spacing = CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS;
        clock.addAndGet(spacing - 1);
        assertFalse(schedule.dueForDoomedSpace(1), "counted from when the schedule was made");
        clock.addAndGet(1);
        assertTrue(schedule.dueForDoomedSpace(1));
        assertFalse(schedule.dueForDoomedSpace(0), "none waiting");
        // A delta of a tenth of a segment: a segment waiting outweighs it 10 to 1 only.
        long started = clock.get();
        clock.addAndGet(5);
        schedule.written(started, 0, 1, CHUNK, SEGMENT / 10, true);
        clock.addAndGet(spacing - 6);
        assertFalse(schedule.dueForDoomedSpace(10), "from when the last durable checkpoint began");
        clock.addAndGet(1);
        assertFalse(schedule.dueForDoomedSpace(9), "9 segments: 90 times the delta's bytes");
        assertTrue(schedule.dueForDoomedSpace(10), "10 segments: " + CheckpointSchedule.DOOMED_SPACE_PAYBACK + " times");
        // A full checkpoint of 1,024 segments' bytes after it: each delta's share of the next is one segment.
        schedule.written(clock.get(), 0, 1, CHUNK, DeltaHeader.MAX_DELTAS * SEGMENT, false);
        clock.addAndGet(spacing);
        assertFalse(schedule.dueForDoomedSpace(109), "109 segments against the delta and a segment's share");
        assertTrue(schedule.dueForDoomedSpace(110));
        assertEquals(110, schedule.segmentsPayingBack(), "the fewest that make one due");
        schedule.failed();
        clock.addAndGet(spacing - 1);
        assertTrue(schedule.retryPassed());
        assertFalse(schedule.dueForDoomedSpace(110), "the spacing after a failure too, not the retry time");
        clock.addAndGet(1);
        assertTrue(schedule.dueForDoomedSpace(110));

        CheckpointSchedule shortInterval = new CheckpointSchedule(EVERY, spacing / 4, SEGMENT, 0, clock::get);
        clock.addAndGet(spacing / 4 - 1);
        assertFalse(shortInterval.dueForDoomedSpace(1));
        clock.addAndGet(1);
        assertTrue(shortInterval.dueForDoomedSpace(1), "an interval shorter than the spacing rules");
        CheckpointSchedule recovered = new CheckpointSchedule(EVERY, INTERVAL, SEGMENT, DeltaHeader.MAX_DELTAS * SEGMENT,
                clock::get);
        clock.addAndGet(spacing);
        assertFalse(recovered.dueForDoomedSpace(99), "the recovered full checkpoint's share: a segment");
        assertTrue(recovered.dueForDoomedSpace(100));
    }

    /**
     * The room hot chunk moves make is at least what pays for the checkpoint that releases it: at 100 M
     * chunks of 16 KiB a full checkpoint is about 1.2 GB, whose share in a delta chain (a 1,024th) and a
     * small delta ask for 9 segments of 16 MiB, not the one or two a top-up of the room dooms.
     */
    @Test
    void theSegmentsPayingBackACheckpointForDoomedSpaceFollowTheLastFullCheckpointsSize() {
        int segment = 16 << 20;
        CheckpointSchedule schedule = new CheckpointSchedule(EVERY, INTERVAL, segment, 1_200_000_000L, clock::get);
        assertEquals(7, schedule.segmentsPayingBack(), "1.2 GB / 1,024 a hundred times: 117 MB");
        schedule.written(clock.get(), 0, 1, CHUNK, 256 << 10, true);
        assertEquals(9, schedule.segmentsPayingBack(), "and a delta of 256 KiB: 143 MB");
        clock.addAndGet(CheckpointSchedule.DOOMED_SPACE_SPACING_MILLIS);
        assertFalse(schedule.dueForDoomedSpace(8));
        assertTrue(schedule.dueForDoomedSpace(9));
        assertEquals(1, schedule(0).segmentsPayingBack(), "a new cache: one segment");
    }

    @Test
    void byTimeOnceTheFirstChunkUnnamedHasWaitedTheInterval() {
        CheckpointSchedule schedule = schedule(0);
        clock.addAndGet(10 * INTERVAL);
        assertFalse(schedule.dueByTime(0, 0), "nothing appended");
        assertFalse(schedule.dueByTime(1, CHUNK), "the chunk came after the last look with nothing unnamed");
        clock.addAndGet(INTERVAL - 1);
        assertFalse(schedule.dueByTime(1, CHUNK));
        clock.addAndGet(1);
        assertTrue(schedule.dueByTime(1, CHUNK));
        assertEquals(1, schedule.appendedSince(1));
        schedule.written(clock.get(), 0, 1, CHUNK, 1_000, false);
        assertEquals(0, schedule.appendedSince(1));
        clock.addAndGet(INTERVAL);
        assertTrue(schedule.dueByTime(2, 2 * CHUNK), "counted from when the checkpoint started");
    }

    @Test
    void byTimeALargeCheckpointWaitsUntilTheBytesAppendedOutweighIt() {
        CheckpointSchedule schedule = schedule(0);
        long large = SEGMENT + 1;
        long needed = CheckpointSchedule.INTERVAL_PAYBACK * large;
        schedule.written(clock.get(), 0, 10, 10 * CHUNK, large, false);
        clock.addAndGet(100 * INTERVAL);
        assertFalse(schedule.dueByTime(11, 10 * CHUNK + needed - 1), "a byte short");
        assertTrue(schedule.dueByTime(12, 10 * CHUNK + needed));
        schedule.written(clock.get(), 0, 12, 10 * CHUNK + needed, SEGMENT, false);
        clock.addAndGet(INTERVAL);
        assertTrue(schedule.dueByTime(13, 10 * CHUNK + needed + 1), "no larger than a segment: one byte will do");
    }

    @Test
    void afterARestartTheFirstByTimeIsWeighedAgainstTheRecoveredCheckpoint() {
        long recovered = 100 * SEGMENT;
        CheckpointSchedule schedule = schedule(recovered);
        clock.addAndGet(100 * INTERVAL);
        assertFalse(schedule.dueByTime(1_000, 1_000 * CHUNK));
        assertTrue(schedule.dueByTime(1_000, CheckpointSchedule.INTERVAL_PAYBACK * recovered));
        CheckpointSchedule small = schedule(SEGMENT);
        clock.addAndGet(INTERVAL);
        assertTrue(small.dueByTime(1, CHUNK), "a recovered checkpoint of a segment or less weighs nothing");
    }

    @Test
    void notByTimeNorByNeedWithinASecondOfAFailureOnTheClockButAtOnceIfTheClockWentBack() {
        CheckpointSchedule schedule = schedule(0);
        assertTrue(schedule.retryPassed(), "none failed");
        clock.addAndGet(INTERVAL);
        schedule.failed();
        assertFalse(schedule.retryPassed());
        clock.addAndGet(CheckpointSchedule.RETRY_MILLIS - 1);
        assertFalse(schedule.retryPassed());
        clock.addAndGet(1);
        assertTrue(schedule.retryPassed());
        schedule.failed();
        clock.addAndGet(-5);
        assertTrue(schedule.retryPassed(), "a clock set back must not hold checkpoints until it catches up");
    }

    @Test
    void aFailureHoldsACheckpointByTimeThatIsOtherwiseDue() {
        CheckpointSchedule schedule = schedule(0);
        assertFalse(schedule.dueByTime(0, 0));
        clock.addAndGet(INTERVAL);
        schedule.failed();
        assertFalse(schedule.dueByTime(1, CHUNK), "within a second of the failure");
        clock.addAndGet(CheckpointSchedule.RETRY_MILLIS);
        assertTrue(schedule.dueByTime(1, CHUNK));
    }

    @Test
    void refusesSettingsThatCannotSchedule() {
        assertThrows(IllegalArgumentException.class, () -> new CheckpointSchedule(0, INTERVAL, SEGMENT, 0, clock::get));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointSchedule(EVERY, 0, SEGMENT, 0, clock::get));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointSchedule(EVERY, INTERVAL, SEGMENT, -1,
                clock::get));
    }
}
