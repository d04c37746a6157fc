package io.flashchunk.cache.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * A chunk's record in a segment: a {@value #HEADER_BYTES}-byte header, the uncompressed chunk, and
 * zero padding to the next boundary of its space's sector ({@link RecordAddress}: 64 bytes on a
 * device of up to 4 TiB).
 *
 * <pre>
 * 0  magic "FCR1"     4  chunk length      8  chunk key
 * 16 segment sequence 24 CRC32C of the chunk   28 CRC32C of bytes 0..27
 * </pre>
 *
 * The key and the segment's sequence are what make a read safe whatever the index said: a record of
 * another key (an index tag collision), of an older use of the segment, or torn, is refused, never
 * served. Little-endian, like the rest of the on-flash formats.
 */
public final class RecordFormat {
    public static final int HEADER_BYTES = 32;
    /** The longest chunk a record holds: 64 KiB, Cassandra's largest chunk length. */
    public static final int MAX_CHUNK_BYTES = 1 << 16;
    static final int MAGIC = 0x3152_4346; // "FCR1" little-endian
    private static final int HEADER_CRC_AT = 28;

    private RecordFormat() {
    }

    /** Bytes a record of a {@code length}-byte chunk takes in a segment of {@code sectorBytes}-byte sectors. */
    public static int recordBytes(int length, int sectorBytes) {
        if (length < 1) {
            throw new IllegalArgumentException("chunk length " + length + " is not positive");
        }
        return (HEADER_BYTES + length + sectorBytes - 1) / sectorBytes * sectorBytes;
    }

    /**
     * Writes the record of {@code chunk} (its bytes from position to limit, left unchanged) at
     * {@code at} in {@code segment}, padding to {@code sectorBytes} included; returns the record's bytes.
     */
    public static int write(ByteBuffer segment, int at, long key, long sequence, ByteBuffer chunk, int sectorBytes) {
        int length = chunk.remaining();
        int bytes = recordBytes(length, sectorBytes);
        if (at < 0 || at % sectorBytes != 0 || at + bytes > segment.capacity()) {
            throw new IllegalArgumentException("a " + bytes + "-byte record does not fit at " + at
                    + " in a " + segment.capacity() + "-byte segment");
        }
        ByteBuffer out = segment.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(at, MAGIC).putInt(at + 4, length).putLong(at + 8, key).putLong(at + 16, sequence)
                .putInt(at + 24, crc(chunk));
        out.putInt(at + HEADER_CRC_AT, crc(out.duplicate().limit(at + HEADER_CRC_AT).position(at)));
        out.position(at + HEADER_BYTES).put(chunk.duplicate());
        for (int i = at + HEADER_BYTES + length; i < at + bytes; i++) {
            out.put(i, (byte) 0);
        }
        return bytes;
    }

    /**
     * Checks the record at {@code at} in {@code bytes} (as read from flash) against the key and segment
     * sequence the reader expects; on success returns the chunk's bytes as a slice of {@code bytes},
     * else throws saying what differed.
     */
    public static ByteBuffer check(ByteBuffer bytes, int at, long key, long sequence) throws RecordMismatchException {
        if (at < 0 || at + HEADER_BYTES > bytes.limit()) {
            throw new RecordMismatchException("no room for a record header at " + at + " in " + bytes.limit() + " bytes read");
        }
        ByteBuffer in = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (in.getInt(at) != MAGIC) {
            throw new RecordMismatchException("no record at " + at + " (magic " + Integer.toHexString(in.getInt(at)) + ")");
        }
        if (in.getInt(at + HEADER_CRC_AT) != crc(in.duplicate().limit(at + HEADER_CRC_AT).position(at))) {
            throw new RecordMismatchException("record header at " + at + " fails its CRC32C", true);
        }
        if (in.getLong(at + 8) != key) {
            throw new RecordMismatchException("record at " + at + " is of key " + Long.toHexString(in.getLong(at + 8))
                    + ", not " + Long.toHexString(key));
        }
        if (in.getLong(at + 16) != sequence) {
            throw new RecordMismatchException("record at " + at + " is from segment sequence " + in.getLong(at + 16)
                    + ", not " + sequence);
        }
        int length = in.getInt(at + 4);
        if (length < 1 || at + HEADER_BYTES + (long) length > bytes.limit()) {
            throw new RecordMismatchException("record at " + at + " says " + length + " bytes; "
                    + (bytes.limit() - at - HEADER_BYTES) + " were read");
        }
        ByteBuffer chunk = in.limit(at + HEADER_BYTES + length).position(at + HEADER_BYTES).slice();
        if (crc(chunk) != in.getInt(at + 24)) {
            throw new RecordMismatchException("chunk of the record at " + at + " fails its CRC32C", true);
        }
        return chunk;
    }

    private static int crc(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }
}
