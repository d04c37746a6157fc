package io.flashchunk.cache.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * A chunk's record in a segment: a {@value #HEADER_BYTES}-byte header, the chunk's payload (its bytes in
 * the record's {@link ChunkForm}: as they are, or LZ4-compressed), and zero padding to the next
 * boundary of its space's sector ({@link RecordAddress}: 64 bytes on a device of up to 4 TiB).
 *
 * <pre>
 * 0  magic "FCR1"     4  payload length (low 24 bits), form (high 8 bits)   8  chunk key
 * 16 segment sequence 24 CRC32C of the payload   28 CRC32C of bytes 0..27
 * </pre>
 *
 * A record written before forms existed has form 0, {@link ChunkForm#RAW}; a release that knows no
 * forms reads a compressed record's length as too long for any chunk, and so refuses it (a miss).
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
    private static final int LENGTH_BITS = 24;
    private static final int LENGTH_MASK = (1 << LENGTH_BITS) - 1;
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

    /** As {@link #write(ByteBuffer, int, long, long, ByteBuffer, ChunkForm, int)} for a chunk's bytes as they are. */
    public static int write(ByteBuffer segment, int at, long key, long sequence, ByteBuffer chunk, int sectorBytes) {
        return write(segment, at, key, sequence, chunk, ChunkForm.RAW, sectorBytes);
    }

    /**
     * Writes the record of a chunk whose payload in {@code form} is {@code chunk} (its bytes from
     * position to limit, left unchanged) at {@code at} in {@code segment}, padding to
     * {@code sectorBytes} included; returns the record's bytes.
     */
    public static int write(ByteBuffer segment, int at, long key, long sequence, ByteBuffer chunk, ChunkForm form,
                            int sectorBytes) {
        int length = chunk.remaining();
        int bytes = recordBytes(length, sectorBytes);
        if (at < 0 || at % sectorBytes != 0 || at + bytes > segment.capacity()) {
            throw new IllegalArgumentException("a " + bytes + "-byte record does not fit at " + at
                    + " in a " + segment.capacity() + "-byte segment");
        }
        ByteBuffer out = segment.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(at, MAGIC).putInt(at + 4, form.code() << LENGTH_BITS | length).putLong(at + 8, key).putLong(at + 16, sequence)
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
     * sequence the reader expects; on success returns the chunk's payload as a slice of {@code bytes}
     * (in the record's {@link #form}), else throws saying what differed.
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
        int length = in.getInt(at + 4) & LENGTH_MASK;
        if (ChunkForm.of(in.getInt(at + 4) >>> LENGTH_BITS) == null) {
            throw new RecordMismatchException("record at " + at + " is of form " + (in.getInt(at + 4) >>> LENGTH_BITS)
                    + ", which this release does not know");
        }
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

    /** The form of the record at {@code at}, which {@link #check} passed. */
    public static ChunkForm form(ByteBuffer bytes, int at) {
        // read in place, whatever the buffer's order: no copy of the buffer on a hit
        int word = bytes.getInt(at + 4);
        ChunkForm form = ChunkForm.of((bytes.order() == ByteOrder.LITTLE_ENDIAN ? word : Integer.reverseBytes(word))
                >>> LENGTH_BITS);
        if (form == null) {
            throw new IllegalStateException("the record at " + at + " did not pass its check");
        }
        return form;
    }

    /**
     * Where the record at {@code at} ends (header and payload, no padding) if its header is whole and
     * intact, whatever its key; -1 when it is not. A reader that read less than a chunk's longest
     * record learns from it whether the record goes on past what it read.
     */
    public static long end(ByteBuffer bytes, int at) {
        if (at < 0 || at + HEADER_BYTES > bytes.limit()) {
            return -1;
        }
        ByteBuffer in = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (in.getInt(at) != MAGIC
                || in.getInt(at + HEADER_CRC_AT) != crc(in.duplicate().limit(at + HEADER_CRC_AT).position(at))) {
            return -1;
        }
        return at + HEADER_BYTES + (long) (in.getInt(at + 4) & LENGTH_MASK);
    }

    private static int crc(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }
}
