package io.flashchunk.cache.checkpoint;

import static io.flashchunk.cache.engine.EngineFixture.PER_SEGMENT;
import static io.flashchunk.cache.engine.EngineFixture.chunk;
import static io.flashchunk.cache.engine.EngineFixture.device;
import static io.flashchunk.cache.engine.EngineFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.engine.EngineFixture;
import io.flashchunk.cache.engine.EngineFixture.Order;
import io.flashchunk.cache.files.NamedFiles;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.write.Writer;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.testing.MemoryDevice;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Random histories on two devices of appends (invalidated keys appended again among them),
 * invalidations, write-aheads, seals, checkpoints (deltas and now and then a full one) and crashes,
 * with several restarts in a row, each run going on from the chain its recovery read. Crashes land
 * right after a checkpoint, between the two spaces' headers, inside space a's write (its body
 * landed, its header not), and after more appends and invalidations (lost invalidations, records
 * past a segment named in part). After each crash the index must be exactly what the newest
 * checkpoint durable in both spaces named: every key at the address it had then, or absent.
 */
class CheckpointRestartHistoryTest {
    private static final UUID INSTANCE = UUID.randomUUID();
    private static final NamedFiles NO_FILES = EngineFixture.NO_FILES;
    private static final int KEYS = 20 * PER_SEGMENT;

    private static EngineFixture engine(MemoryDevice... devices) {
        return new EngineFixture(TimeUnit.SECONDS.toNanos(5), Order.ENGINE, devices);
    }

    private static Writer writer(EngineFixture engine, Checkpointer checkpointer) {
        return engine.parts.writer(checkpointer,
                new CheckpointSchedule(Integer.MAX_VALUE, Long.MAX_VALUE, EngineFixture.SEGMENT_BYTES, 0, () -> 0),
                NO_FILES, () -> 0);
    }

    /** Per key, the address a checkpoint starting now names it at, or NONE. */
    private static long[] named(EngineFixture e) {
        long[] named = new long[KEYS];
        for (int k = 0; k < KEYS; k++) {
            long address = e.index.find(key(k));
            named[k] = RecordAddress.NONE;
            if (address == RecordAddress.NONE) {
                continue;
            }
            int space = RecordAddress.space(address);
            int segment = e.table.segment(space, e.spaces.layout(space).index(address));
            int sector = e.spaces.layout(space).sectorInSegment(address);
            SegmentState state = e.table.state(segment);
            if (state == SegmentState.DURABLE || (state == SegmentState.OPEN || state == SegmentState.SEALED)
                    && sector < e.table.writtenSectors(segment)) {
                named[k] = address;
            }
        }
        return named;
    }

    private static MemoryDevice copy(MemoryDevice d) {
        return new MemoryDevice(d.path(), d.image(), 8);
    }

    private static MemoryDevice copy(String path, byte[] image) {
        return new MemoryDevice(path, image, 8);
    }

    /** The after image, but the lowest block in the checkpoint areas that changed (the new header) as before. */
    private static byte[] headerNotWritten(byte[] before, byte[] after) {
        byte[] torn = after.clone();
        int block = BlockDevice.BLOCK_SIZE;
        for (int b = 1; b < 256; b++) {
            if (!java.util.Arrays.equals(before, b * block, (b + 1) * block, after, b * block, (b + 1) * block)) {
                System.arraycopy(before, b * block, torn, b * block, block);
                return torn;
            }
        }
        return torn;
    }

    @Test
    void everyCrashOfARandomHistoryRecoversExactlyWhatTheNewestDurableCheckpointNamed() throws Exception {
        int seeds = 20;
        int continued = 0;
        int crashesChecked = 0;
        for (int seed = 0; seed < seeds; seed++) {
            int[] counts = history(seed);
            continued += counts[0];
            crashesChecked += counts[1];
        }
        assertTrue(continued > seeds && crashesChecked > 10 * seeds, continued + " recovered runs went on from their "
                + "chain, of " + crashesChecked + " crashes checked");
    }

    private static int[] history(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int segments = 14;
        MemoryDevice a = device("a", segments);
        MemoryDevice b = device("b", segments);
        EngineFixture e = engine(a, b);
        Checkpointer checkpointer = e.checkpointer(INSTANCE);
        Writer writer = writer(e, checkpointer);
        long[] durable = null; // what the newest checkpoint durable in both spaces names
        int continued = 0;
        int crashes = 0;
        StringBuilder log = new StringBuilder("seed " + seed + ":");
        for (int step = 0; step < 220; step++) {
            int op = random.nextInt(100);
            if (op < 55) {
                int n = 1 + random.nextInt(PER_SEGMENT);
                for (int i = 0; i < n; i++) {
                    int k = random.nextInt(KEYS);
                    if (e.index.find(key(k)) == RecordAddress.NONE) {
                        e.segmentWriter.append(key(k), chunk(key(k)));
                    }
                }
                log.append(" append").append(n);
            } else if (op < 67) {
                int k = random.nextInt(KEYS);
                writer.invalidate(key(k));
                log.append(" inval").append(k);
            } else if (op < 75) {
                e.segmentWriter.persist();
                log.append(" persist");
            } else if (op < 80) {
                e.segmentWriter.flush();
                log.append(" flush");
            } else if (op < 92 || op >= 96 && durable != null) {
                boolean crashNow = op >= 96;
                boolean full = random.nextInt(8) == 0;
                long[] names = named(e);
                byte[] aBefore = a.image();
                byte[] bBefore = b.image();
                int crash;
                if (crashNow) {
                    crash = 10;
                } else {
                    Checkpointer.Result result;
                    try {
                        result = checkpointer.checkpoint(NO_FILES, full);
                    } catch (java.io.IOException ex) {
                        fail(log + ": checkpoint failed " + ex);
                        return null;
                    }
                    log.append(result.deltaSpaces() > 0 ? " delta" : " full").append(result.sequence())
                            .append("(").append(result.changedSegments()).append(")");
                    crash = durable == null ? (random.nextInt(3) == 0 ? 0 : -1) : random.nextInt(6);
                }
                if (crash == 10) {
                    log.append(" CRASH-now");
                    a = copy(a);
                    b = copy(b);
                } else if (crash == 1 || crash == 2) {
                    // A crash between the headers of space a and b, or in space a's write (its body landed).
                    byte[] aImage = crash == 1 ? a.image() : headerNotWritten(aBefore, a.image());
                    log.append(crash == 1 ? " CRASH-between-headers" : " CRASH-in-a's-write");
                    a = copy("a", aImage);
                    b = copy("b", bBefore);
                } else if (crash == 0) {
                    log.append(" CRASH");
                    durable = names;
                    a = copy(a);
                    b = copy(b);
                } else {
                    durable = names;
                    continue;
                }
                long floor = e.table.nextSequence() + 1000; // the engine reserves sequences above every earlier run's
                e = engine(a, b);
                Recovery.Outcome outcome = e.recover(INSTANCE);
                e.table.continueSequencesFrom(floor);
                crashes++;
                log.append(" recovered").append(java.util.Arrays.toString(outcome.loadedDeltas()))
                        .append(outcome.continuesChain() ? "(goes on)" : "(full next)");
                for (int k = 0; k < KEYS; k++) {
                    long expected = durable == null ? RecordAddress.NONE : durable[k];
                    long found = e.index.find(key(k));
                    if (expected != found) {
                        fail(log + ": chunk " + k + " recovered at " + RecordAddress.describe(found) + ", the durable "
                                + "checkpoint named " + RecordAddress.describe(expected) + "; " + outcome);
                    }
                }
                assertEquals(0, e.mismatches);
                continued += outcome.continuesChain() ? 1 : 0;
                checkpointer = e.checkpointer(INSTANCE, outcome, () -> 0);
                writer = writer(e, checkpointer);
            }
        }
        return new int[] {continued, crashes};
    }
}
