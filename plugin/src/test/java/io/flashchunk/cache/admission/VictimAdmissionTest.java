package io.flashchunk.cache.admission;

import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.reclaim.SegmentSamples;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.cache.write.WriterPolicy;
import io.flashchunk.device.BlockDevice;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class VictimAdmissionTest {
    @Test
    void admitsEverythingUntilThereIsAVictimThenOnlyChunksReadMoreOftenThanIt() {
        VictimAdmission admission = new VictimAdmission(1 << 12, 1);
        assertTrue(admission.admit(1), "no victim: flash has room");
        for (int i = 0; i < 2; i++) {
            admission.accessed(100);
            admission.accessed(101);
        }
        admission.victims(new long[] {100, 101});
        admission.accessed(1);
        assertFalse(admission.admit(1), "read once, against victims read twice");
        admission.accessed(1);
        assertFalse(admission.admit(1), "read as often as the victims");
        admission.accessed(1);
        assertTrue(admission.admit(1), "read more often than the victims");
        admission.victims(new long[0]);
        assertTrue(admission.admit(2));
    }

    @Test
    void samplesAreKeysOfTheSegmentsCurrentUseSpreadOverIt() {
        SegmentSamples samples = new SegmentSamples(3);
        samples.opened(1);
        assertEquals(0, samples.of(1).length);
        for (long key = 0; key < 1000; key++) {
            samples.appended(1, key);
        }
        long[] drawn = samples.of(1);
        assertEquals(SegmentSamples.PER_SEGMENT, drawn.length);
        assertTrue(Arrays.stream(drawn).allMatch(key -> key >= 0 && key < 1000), Arrays.toString(drawn));
        assertTrue(Arrays.stream(drawn).anyMatch(key -> key >= 100), "not just the first keys: " + Arrays.toString(drawn));
        samples.opened(1);
        samples.appended(1, 5000);
        assertArrayEquals(new long[] {5000}, samples.of(1), "a new use forgets the old one's");
    }

    /** The writer's steps on a device of four segments, oldest first: the victim is known. */
    private static Writer writerOnFourSegments(WriterPolicy policy) {
        return new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, policy, device("a", 4)).writer;
    }

    @Test
    void theWriterPublishesTheChunksOfTheSegmentItReclaimsNext() {
        VictimAdmission admission = new VictimAdmission(8L * PER_SEGMENT, 1);
        Writer writer = writerOnFourSegments(new WriterPolicy(admission, 0));
        for (int i = 0; i < 3 * PER_SEGMENT; i++) {
            writer.append(key(i), chunk(key(i)));
            assertEquals(0, admission.victims().length, "chunk " + i + ": segments never used remain");
        }
        writer.append(key(3 * PER_SEGMENT), chunk(key(3 * PER_SEGMENT))); // opens the last free segment
        assertVictimsIn(admission.victims(), 0, "the first segment, the next to be reclaimed");
        for (int i = 3 * PER_SEGMENT + 1; i <= 4 * PER_SEGMENT; i++) {
            writer.append(key(i), chunk(key(i))); // the last one reclaims the first segment
        }
        assertVictimsIn(admission.victims(), 1, "then the second");
    }

    @Test
    void aDeadFilesChunksAreNeverVictimsWhateverTheirReads() {
        int dead = ChunkKeys.fileId(key(0)); // a file compacted away
        VictimAdmission admission = new VictimAdmission(8L * PER_SEGMENT, 1, 8, 10, key -> ChunkKeys.fileId(key) != dead);
        long hotDead = key(0);
        long hotLive = ChunkKeys.key(dead + 1, 0);
        long newcomer = ChunkKeys.key(dead + 2, 0);
        for (int read = 0; read < 10; read++) {
            admission.accessed(hotDead); // read often while its file was live
            admission.accessed(hotLive);
        }
        admission.accessed(newcomer);
        admission.victims(new long[] {hotDead, key(1), key(2)});
        for (int i = 0; i < 20; i++) {
            assertTrue(admission.admit(newcomer), "only dead victims: nothing live has to make room");
        }
        admission.victims(new long[] {hotDead, hotLive, key(1)});
        for (int i = 0; i < 20; i++) {
            assertFalse(admission.admit(newcomer), "weighed against the one live victim, read more often");
        }
    }

    @Test
    void afterARestartTheVictimsAreSampledFromTheRecoveredSegmentsSummary() throws Exception {
        BlockDevice device = device("a", 4);
        EngineFixture before = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, device);
        for (int i = 0; i < 3 * PER_SEGMENT; i++) {
            before.segmentWriter.append(key(i), chunk(key(i)));
        }
        before.segmentWriter.flush();
        before.checkpointer(java.util.UUID.nameUUIDFromBytes(new byte[1])).checkpoint(EngineFixture.NO_FILES);
        VictimAdmission admission = new VictimAdmission(8L * PER_SEGMENT, 1);
        EngineFixture after = new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.OLDEST_FIRST, new WriterPolicy(admission, 0), device);
        after.recover(java.util.UUID.nameUUIDFromBytes(new byte[1]));
        after.segmentWriter.append(key(1000), chunk(key(1000))); // opens the last free segment
        assertVictimsIn(admission.victims(), 0, "the oldest recovered segment, sampled from its summary");
    }

    private static void assertVictimsIn(long[] victims, int segment, String why) {
        assertEquals(SegmentSamples.PER_SEGMENT, victims.length, why);
        for (long victim : victims) {
            boolean in = false;
            for (int i = segment * PER_SEGMENT; i < (segment + 1) * PER_SEGMENT; i++) {
                in |= key(i) == victim;
            }
            assertTrue(in, why + ": " + victim);
        }
    }
}
