package io.flashchunk.cache.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The list of a segment's records, written at the segment's end when it is sealed, so that
 * reclaiming the segment reads one small piece of it to learn which index entries point into it.
 *
 * <pre>
 * entries  16 bytes each: chunk key (8), record offset in the segment in sectors (4), chunk length (4)
 * trailer  the segment's last 32 bytes: magic "FCS1" (4), entry count (4), segment sequence (8),
 *          CRC32C of the entries (4), 8 zero bytes, CRC32C of the trailer's first 28 bytes (4)
 * </pre>
 *
 * Little-endian. The entries end where the trailer starts; the records end before the entries begin.
 */
public final class SegmentSummary {
    public static final int ENTRY_BYTES = 16;
    public static final int TRAILER_BYTES = 32;
    static final int MAGIC = 0x3153_4346; // "FCS1" little-endian

    private final long sequence;
    private final long[] keys;
    private final int[] sectors;
    private final int[] lengths;

    public SegmentSummary(long sequence, long[] keys, int[] sectors, int[] lengths) {
        if (keys.length != sectors.length || keys.length != lengths.length) {
            throw new IllegalArgumentException("summary arrays differ in length: " + keys.length + " keys, "
                    + sectors.length + " sectors, " + lengths.length + " lengths");
        }
        this.sequence = sequence;
        this.keys = keys;
        this.sectors = sectors;
        this.lengths = lengths;
    }

    public long sequence() {
        return sequence;
    }

    public long[] keys() {
        return keys;
    }

    public int[] sectors() {
        return sectors;
    }

    public int[] lengths() {
        return lengths;
    }

    /** Bytes the summary of {@code count} records takes at the end of its segment. */
    public static int bytes(int count) {
        return TRAILER_BYTES + ENTRY_BYTES * count;
    }

    public int count() {
        return keys.length;
    }

    /**
     * Checks that every entry names a record that can lie in a segment of {@code layout}: a chunk of
     * 1 to {@link RecordFormat#MAX_CHUNK_BYTES} bytes whose record ends before the summary begins.
     * The checksums only say the summary is as written; this says it is one the writer could have
     * written, so that nothing acting on it (a reclaim) meets an impossible address or length.
     */
    public void checkWithin(SegmentLayout layout) throws RecordMismatchException {
        int segmentBytes = layout.segmentBytes();
        int sectorBytes = layout.sectorBytes();
        long recordsEnd = (long) segmentBytes - bytes(count());
        for (int i = 0; i < count(); i++) {
            if (sectors[i] < 0 || lengths[i] < 1 || lengths[i] > RecordFormat.MAX_CHUNK_BYTES
                    || (long) sectors[i] * sectorBytes + RecordFormat.recordBytes(lengths[i], sectorBytes) > recordsEnd) {
                throw new RecordMismatchException("segment summary entry " + i + " names a record of " + lengths[i]
                        + " bytes at sector " + sectors[i] + ", outside the " + recordsEnd
                        + " bytes a segment of " + segmentBytes + " has for records");
            }
        }
    }

    /** Writes this summary at the end of {@code segment} (its capacity). */
    public void write(ByteBuffer segment) {
        ByteBuffer out = segment.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        int trailer = out.capacity() - TRAILER_BYTES;
        int start = trailer - ENTRY_BYTES * count();
        if (start < 0) {
            throw new IllegalArgumentException("a summary of " + count() + " records does not fit in "
                    + out.capacity() + " bytes");
        }
        for (int i = 0; i < count(); i++) {
            out.putLong(start + i * ENTRY_BYTES, keys[i]).putInt(start + i * ENTRY_BYTES + 8, sectors[i])
                    .putInt(start + i * ENTRY_BYTES + 12, lengths[i]);
        }
        out.putInt(trailer, MAGIC).putInt(trailer + 4, count()).putLong(trailer + 8, sequence)
                .putInt(trailer + 16, crc(out, start, trailer)).putLong(trailer + 20, 0);
        out.putInt(trailer + 28, crc(out, trailer, trailer + 28));
    }

    /**
     * Bytes at the segment's end that hold its whole summary, read from its trailer (the last
     * {@value #TRAILER_BYTES} bytes of {@code tail}, which ends where the segment ends).
     */
    public static int bytesAtEnd(ByteBuffer tail) throws RecordMismatchException {
        ByteBuffer in = tail.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int trailer = in.limit() - TRAILER_BYTES;
        if (trailer < 0 || in.getInt(trailer) != MAGIC) {
            throw new RecordMismatchException("no segment summary trailer in the last " + in.limit() + " bytes");
        }
        if (in.getInt(trailer + 28) != crc(in, trailer, trailer + 28)) {
            throw new RecordMismatchException("segment summary trailer fails its CRC32C");
        }
        int count = in.getInt(trailer + 4);
        if (count < 0 || count > (Integer.MAX_VALUE - TRAILER_BYTES) / ENTRY_BYTES) {
            throw new RecordMismatchException("segment summary says " + count + " records");
        }
        return bytes(count);
    }

    /**
     * Reads the summary from {@code tail}, which ends where the segment ends and holds at least
     * {@link #bytesAtEnd} bytes, checking that it is the summary of the segment's use {@code sequence}.
     */
    public static SegmentSummary read(ByteBuffer tail, long sequence) throws RecordMismatchException {
        int bytes = bytesAtEnd(tail);
        ByteBuffer in = tail.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int trailer = in.limit() - TRAILER_BYTES;
        int start = in.limit() - bytes;
        if (start < 0) {
            throw new RecordMismatchException("segment summary needs " + bytes + " bytes; " + in.limit() + " were read");
        }
        if (in.getLong(trailer + 8) != sequence) {
            throw new RecordMismatchException("segment summary is of sequence " + in.getLong(trailer + 8) + ", not " + sequence);
        }
        if (in.getInt(trailer + 16) != crc(in, start, trailer)) {
            throw new RecordMismatchException("segment summary entries fail their CRC32C");
        }
        int count = (trailer - start) / ENTRY_BYTES;
        long[] keys = new long[count];
        int[] sectors = new int[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            keys[i] = in.getLong(start + i * ENTRY_BYTES);
            sectors[i] = in.getInt(start + i * ENTRY_BYTES + 8);
            lengths[i] = in.getInt(start + i * ENTRY_BYTES + 12);
        }
        return new SegmentSummary(sequence, keys, sectors, lengths);
    }

    private static int crc(ByteBuffer bytes, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate().limit(to).position(from));
        return (int) crc.getValue();
    }

    @Override
    public String toString() {
        return "SegmentSummary[sequence=" + sequence + ", keys=" + keys + ", sectors=" + sectors
                + ", lengths=" + lengths + "]";
    }
}
