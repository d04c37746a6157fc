package io.flashchunk.cache.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SegmentBufferTest {
    /** Sectors a record of a 4000-byte chunk takes. */
    private static final int SECTORS_4000 = RecordFormat.recordBytes(4000, RecordAddress.MIN_SECTOR_BYTES) / RecordAddress.MIN_SECTOR_BYTES;

    private static final int SEGMENT_BYTES = 64 * 1024;

    /** A chunk whose every byte says which key and use it belongs to. */
    private static ByteBuffer chunk(long key, long sequence, int length) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) (key * 31 + sequence));
        return ByteBuffer.wrap(bytes);
    }

    @Test
    void servesEachAppendedChunkAndSealsToItsRecordsAndASummaryAtTheEnd() throws Exception {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocateDirect(SEGMENT_BYTES));
        buffer.start(5, 9, RecordAddress.MIN_SECTOR_BYTES);
        int first = buffer.append(100, chunk(100, 9, 16384));
        int second = buffer.append(101, chunk(101, 9, 4000));
        assertEquals(0, first);
        assertEquals(RecordFormat.recordBytes(16384, RecordAddress.MIN_SECTOR_BYTES) / RecordAddress.MIN_SECTOR_BYTES, second);
        ByteBuffer into = ByteBuffer.allocate(16384);
        assertEquals(4000, buffer.read(5, 9, second, 101, 16384, into));
        assertEquals(chunk(101, 9, 4000), into.flip());
        assertEquals(-1, buffer.read(5, 8, first, 100, 16384, ByteBuffer.allocate(16384)), "another use of the segment");
        assertEquals(-1, buffer.read(6, 9, first, 100, 16384, ByteBuffer.allocate(16384)), "another segment");
        assertThrows(RecordMismatchException.class, () -> buffer.read(5, 9, first, 101, 16384, ByteBuffer.allocate(16384)));
        RecordMismatchException longer = assertThrows(RecordMismatchException.class,
                () -> buffer.read(5, 9, first, 100, 4096, ByteBuffer.allocate(16384)));
        assertTrue(longer.getMessage().contains("holds 16384 bytes; the chunk has at most 4096"), longer.getMessage());

        var sealed = buffer.seal();
        assertEquals(2, sealed.size(), "the records, then the summary");
        assertEquals(0, sealed.get(0).offset(), "nothing written before: from the segment's start");
        ByteBuffer records = sealed.get(0).bytes();
        assertEquals(5 * 4096, records.remaining(), "the records' blocks: 16.5 KiB and 4 KiB of records");
        assertEquals(SEGMENT_BYTES - 4096, sealed.get(1).offset(), "the summary's block, at the segment's end");
        SegmentSummary summary = SegmentSummary.read(sealed.get(1).bytes(), 9);
        assertArrayEquals(new long[] {100, 101}, summary.keys());
        assertArrayEquals(new int[] {first, second}, summary.sectors());
        assertEquals(chunk(100, 9, 16384), RecordFormat.check(records, first * RecordAddress.MIN_SECTOR_BYTES, 100, 9));
        assertThrows(IllegalStateException.class, () -> buffer.append(102, chunk(102, 9, 10)));
    }

    /** Writes {@code part} into {@code device} (a segment's bytes) as the writer writes it to flash. */
    private static void write(byte[] device, SegmentBuffer.Part part) {
        assertEquals(0, part.offset() % 4096, "a part starts on a block");
        assertEquals(0, part.bytes().remaining() % 4096, "a part is whole blocks");
        part.bytes().duplicate().get(device, part.offset(), part.bytes().remaining());
    }

    @Test
    void recordsSoFarAreWrittenWithTheirSummaryAndTheSealWritesOnFromWhereThatEnded() throws Exception {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocateDirect(SEGMENT_BYTES));
        buffer.start(2, 7, RecordAddress.MIN_SECTOR_BYTES);
        assertTrue(buffer.unwrittenPrefix().isEmpty(), "no records, nothing to write");
        byte[] device = new byte[SEGMENT_BYTES];
        Arrays.fill(device, (byte) 0x5a); // what an earlier use left
        buffer.append(10, chunk(10, 7, 4000));
        buffer.append(11, chunk(11, 7, 3000));
        var first = buffer.unwrittenPrefix();
        assertEquals(2, first.size(), "the records' blocks and the summary's");
        assertEquals(0, first.get(0).offset());
        assertEquals(8192, first.get(0).bytes().remaining(), "records end in the second block");
        assertEquals(SEGMENT_BYTES - 4096, first.get(1).offset());
        first.forEach(part -> write(device, part));
        buffer.prefixWritten();
        assertTrue(buffer.unwrittenPrefix().isEmpty(), "nothing appended since");
        SegmentSummary summary = SegmentSummary.read(ByteBuffer.wrap(device, SEGMENT_BYTES - 4096, 4096).slice(), 7);
        assertArrayEquals(new long[] {10, 11}, summary.keys(), "flash has a summary of the records so far");
        assertEquals(chunk(11, 7, 3000), RecordFormat.check(ByteBuffer.wrap(device), SECTORS_4000 * RecordAddress.MIN_SECTOR_BYTES,
                11, 7));

        int third = buffer.append(12, chunk(12, 7, 5000));
        var second = buffer.unwrittenPrefix();
        assertEquals(4096, second.get(0).offset(), "again from the block the records ended in");
        second.forEach(part -> write(device, part));
        buffer.prefixWritten();
        assertEquals(chunk(12, 7, 5000), RecordFormat.check(ByteBuffer.wrap(device), third * RecordAddress.MIN_SECTOR_BYTES,
                12, 7));
        assertEquals(3, SegmentSummary.read(ByteBuffer.wrap(device, SEGMENT_BYTES - 4096, 4096).slice(), 7).count());

        buffer.append(13, chunk(13, 7, 100));
        var rest = buffer.seal();
        assertEquals(8192, rest.get(0).offset(), "the seal writes from the block the last records ended in");
        rest.forEach(part -> write(device, part));
        // What reached flash in three writes is what the same segment sealed at once puts there.
        SegmentBuffer once = new SegmentBuffer(ByteBuffer.allocateDirect(SEGMENT_BYTES));
        once.start(2, 7, RecordAddress.MIN_SECTOR_BYTES);
        once.append(10, chunk(10, 7, 4000));
        once.append(11, chunk(11, 7, 3000));
        once.append(12, chunk(12, 7, 5000));
        once.append(13, chunk(13, 7, 100));
        byte[] onceDevice = new byte[SEGMENT_BYTES];
        Arrays.fill(onceDevice, (byte) 0x5a);
        once.seal().forEach(part -> write(onceDevice, part));
        assertArrayEquals(onceDevice, device);
    }

    /** A segment of 512 KiB filled through 128 KiB windows in two buffers taking turns, as the writer does. */
    private static final int WINDOWED_SEGMENT = 512 * 1024;
    private static final int WINDOW = 128 * 1024;

    @Test
    void aSegmentFilledThroughWindowsReachesFlashAsIfFilledInOneBuffer() throws Exception {
        SegmentBuffer[] buffers = {new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT),
            new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT)};
        SegmentBuffer whole = new SegmentBuffer(ByteBuffer.allocateDirect(WINDOWED_SEGMENT));
        byte[] device = new byte[WINDOWED_SEGMENT];
        byte[] wholeDevice = new byte[WINDOWED_SEGMENT];
        Arrays.fill(device, (byte) 0x5a);
        Arrays.fill(wholeDevice, (byte) 0x5a);
        SegmentBuffer open = buffers[0];
        open.start(4, 3, RecordAddress.MIN_SECTOR_BYTES);
        whole.start(4, 3, RecordAddress.MIN_SECTOR_BYTES);
        int windows = 1;
        int key = 0;
        while (true) {
            ByteBuffer chunk = chunk(key, 3, 4000 + key % 7 * 1000); // records that straddle blocks
            int sector = open.append(key, chunk);
            if (sector == SegmentBuffer.WINDOW_FULL) {
                SegmentBuffer next = open == buffers[0] ? buffers[1] : buffers[0];
                write(device, open.windowPart());
                next.tryReuse();
                next.continueFrom(open);
                open = next;
                windows++;
                sector = open.append(key, chunk);
            }
            int inWhole = whole.append(key, chunk);
            assertEquals(inWhole, sector, "record " + key + " sits where one buffer puts it");
            if (sector == SegmentBuffer.SEGMENT_FULL) {
                break;
            }
            key++;
        }
        assertTrue(windows >= 4, windows + " windows");
        open.seal().forEach(part -> write(device, part));
        whole.seal().forEach(part -> write(wholeDevice, part));
        assertArrayEquals(wholeDevice, device);
        SegmentSummary summary = SegmentSummary.read(ByteBuffer.wrap(device, WINDOWED_SEGMENT - 4096, 4096).slice(), 3);
        assertEquals(key, summary.count(), "the summary lists every window's records");
        for (int i = 0; i < key; i++) {
            assertEquals(chunk(i, 3, 4000 + i % 7 * 1000),
                    RecordFormat.check(ByteBuffer.wrap(device), summary.sectors()[i] * RecordAddress.MIN_SECTOR_BYTES, i, 3));
        }
    }

    @Test
    void eachWindowServesTheRecordsThatStartInItAndLeavesEarlierOnesToFlash() throws Exception {
        SegmentBuffer first = new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT);
        SegmentBuffer second = new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT);
        first.start(1, 5, RecordAddress.MIN_SECTOR_BYTES);
        List<Integer> sectors = new ArrayList<>();
        int key = 0;
        for (int sector; (sector = first.append(key, chunk(key, 5, 4000))) >= 0; key++) {
            sectors.add(sector);
        }
        assertThrows(IllegalStateException.class, () -> second.continueFrom(first), "only a full window's part taken");
        first.windowPart();
        second.continueFrom(first);
        int last = key - 1; // its record ends in the block the second window starts with
        assertEquals(first.fill(), second.fill());
        int carried = second.append(key, chunk(key, 5, 4000));
        assertEquals(first.fill() / RecordAddress.MIN_SECTOR_BYTES, carried, "the segment goes on where the window ended");
        ByteBuffer into = ByteBuffer.allocate(8192);
        for (int k = 0; k <= last; k++) {
            assertEquals(4000, first.read(1, 5, sectors.get(k), k, 8192, into.clear()), "the first window keeps " + k);
        }
        assertEquals(-1, second.read(1, 5, sectors.get(0), 0, 8192, into.clear()), "not in the second window");
        assertEquals(-1, first.read(1, 5, carried, key, 8192, into.clear()), "in the second window, not missing");
        assertEquals(4000, second.read(1, 5, carried, key, 8192, into.clear()));
        assertEquals(chunk(key, 5, 4000), into.flip());
        if (sectors.get(last) * RecordAddress.MIN_SECTOR_BYTES >= first.fill() / 4096 * 4096) {
            assertEquals(4000, second.read(1, 5, sectors.get(last), last, 8192, into.clear()), "a record in the carried block");
        }
        assertThrows(IllegalStateException.class, () -> first.append(99, chunk(99, 5, 10)), "the full window takes no more");
        assertEquals(key + 1, second.summary().count(), "the segment's records so far, both windows'");
    }

    @Test
    void aWindowWhoseRecordsACheckpointWroteToTheBlockHasNothingLeftToWrite() throws Exception {
        SegmentBuffer first = new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT);
        SegmentBuffer second = new SegmentBuffer(ByteBuffer.allocateDirect(WINDOW), WINDOWED_SEGMENT);
        first.start(2, 8, RecordAddress.MIN_SECTOR_BYTES);
        int length = 4096 - RecordFormat.HEADER_BYTES; // one block a record
        int key = 0;
        while (first.append(key, chunk(key, 8, length)) >= 0) {
            key++;
        }
        assertEquals(WINDOW / 4096, key, "the window is full to its last byte");
        assertEquals(2, first.unwrittenPrefix().size());
        first.prefixWritten();
        assertEquals(SegmentBuffer.WINDOW_FULL, first.append(key, chunk(key, 8, length)));
        assertNull(first.windowPart(), "a checkpoint wrote every record to the window's end");
        second.continueFrom(first);
        assertEquals(key * 64, second.append(key, chunk(key, 8, length)), "the next window starts at the block after");
        List<SegmentBuffer.Part> rest = second.seal();
        assertEquals(WINDOW, rest.get(0).offset(), "only the new record and the summary are left to write");
    }

    @Test
    void refusesWindowsThatCannotHoldTheLargestRecord() {
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> new SegmentBuffer(ByteBuffer.allocateDirect(64 * 1024), WINDOWED_SEGMENT));
        assertTrue(small.getMessage().contains("65536-byte window") && small.getMessage().contains("largest record"),
                small.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new SegmentBuffer(ByteBuffer.allocateDirect(WINDOWED_SEGMENT), WINDOW), "larger than the segment");
        assertEquals(4 << 20, SegmentBuffer.windowFor(16 << 20), "a quarter of the default segment");
        assertEquals(256 << 10, SegmentBuffer.windowFor(1 << 20));
        assertEquals(64 << 10, SegmentBuffer.windowFor(64 << 10), "a segment too small to split is one window");
    }

    @Test
    void refusesARecordThatWouldOverrunTheSummary() {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocate(SEGMENT_BYTES));
        buffer.start(0, 1, RecordAddress.MIN_SECTOR_BYTES);
        int appended = 0;
        while (buffer.append(appended, chunk(appended, 1, 16384)) != -1) {
            appended++;
        }
        assertEquals(3, appended, "four 16.5 KiB records and a summary overrun 64 KiB");
        assertTrue(buffer.append(99, chunk(99, 1, 100)) != -1, "a small one still fits");
    }

    @Test
    void readsAnIncompleteRecordAsAMismatchNeverAsBytes() {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocate(SEGMENT_BYTES));
        buffer.start(0, 1, RecordAddress.MIN_SECTOR_BYTES);
        buffer.append(1, chunk(1, 1, 1000));
        int end = RecordFormat.recordBytes(1000, RecordAddress.MIN_SECTOR_BYTES) / RecordAddress.MIN_SECTOR_BYTES; // the first sector after it
        RecordMismatchException past = assertThrows(RecordMismatchException.class,
                () -> buffer.read(0, 1, end, 2, 4096, ByteBuffer.allocate(4096)));
        assertTrue(past.getMessage().contains("no complete record at sector " + end), past.getMessage());
        RecordMismatchException inside = assertThrows(RecordMismatchException.class,
                () -> buffer.read(0, 1, 2, 2, 4096, ByteBuffer.allocate(4096)));
        assertTrue(inside.getMessage().contains("no record at " + 2 * RecordAddress.MIN_SECTOR_BYTES), inside.getMessage());
    }

    @Test
    void isReusedOnlyOnceItsReadsAreDone() throws Exception {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocate(SEGMENT_BYTES));
        assertThrows(IllegalStateException.class, () -> buffer.append(1, chunk(1, 1, 10)));
        buffer.start(3, 1, RecordAddress.MIN_SECTOR_BYTES);
        buffer.append(1, chunk(1, 1, 10));
        buffer.seal();
        assertThrows(IllegalStateException.class, () -> buffer.start(4, 2, RecordAddress.MIN_SECTOR_BYTES), "not taken back yet");
        assertTrue(buffer.tryReuse());
        assertEquals(-1, buffer.read(3, 1, 0, 1, 4096, ByteBuffer.allocate(4096)), "the old use is gone");
        buffer.start(3, 2, RecordAddress.MIN_SECTOR_BYTES);
        assertEquals(-1, buffer.read(3, 1, 0, 1, 4096, ByteBuffer.allocate(4096)), "the old use of the same segment");
        buffer.append(7, chunk(7, 2, 10));
        assertEquals(10, buffer.read(3, 2, 0, 7, 4096, ByteBuffer.allocate(4096)));
    }

    /**
     * The writer fills, seals and reuses one buffer for use after use while a reader reads the
     * records of whatever use it last saw: every read returns that use's bytes or -1, never another
     * use's bytes or a torn record.
     */
    @Test
    void aReaderNeverGetsAnotherUsesBytesWhileTheBufferIsReused() throws Exception {
        SegmentBuffer buffer = new SegmentBuffer(ByteBuffer.allocateDirect(SEGMENT_BYTES));
        CountDownLatch start = new CountDownLatch(2);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong served = new AtomicLong();
        AtomicLong currentUse = new AtomicLong();
        Thread reader = new Thread(() -> {
            ByteBuffer into = ByteBuffer.allocate(8192);
            start.countDown();
            while (writing.get() && failure.get() == null) {
                long use = currentUse.get();
                for (int record = 0; record < 7; record++) {
                    into.clear();
                    try {
                        int length = buffer.read(0, use, record * SECTORS_4000, record, 8192, into);
                        if (length != -1) {
                            into.flip();
                            if (!into.equals(chunk(record, use, 4000))) {
                                failure.set("use " + use + " record " + record + " served other bytes");
                            }
                            served.incrementAndGet();
                        }
                    } catch (RecordMismatchException e) {
                        // not yet appended in this use: a miss
                    }
                }
            }
        });
        reader.start();
        start.countDown();
        start.await();
        long reuses = 0;
        // At least 5,000 uses, and more until the reader has been served 1,000 times (it may start late).
        for (long use = 1; (use <= 5_000 || served.get() < 1_000) && use < 1_000_000 && failure.get() == null; use++) {
            buffer.start(0, use, RecordAddress.MIN_SECTOR_BYTES);
            currentUse.set(use);
            for (int record = 0; record < 7; record++) {
                assertEquals(record * SECTORS_4000, buffer.append(record, chunk(record, use, 4000)));
            }
            buffer.seal();
            while (!buffer.tryReuse()) {
                reuses++;
                Thread.onSpinWait();
            }
        }
        writing.set(false);
        reader.join();
        assertNull(failure.get());
        assertTrue(served.get() >= 1_000, "the reader was served " + served.get() + " times; waits for reuse: " + reuses);
    }
}
