package io.flashchunk.cache.format;

import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The {@link ChunkForm#LZ4} payload of a chunk: the length of an LZ4 block (4 bytes, little-endian),
 * the CRC32C of the chunk (4 bytes), the block (lz4-java, the library Cassandra itself compresses
 * with, its copy on the node's classpath), then zeros up to {@value #MIN_PAYLOAD_BYTES} bytes. The
 * record's own CRC32C covers the payload as stored; the chunk's is checked after decompression, so
 * that the bytes served are checked whatever the library did. The zeros keep a record from being
 * shorter than a 4 KiB block: a checkpoint area has room for one entry a block of its segments
 * ({@link DeviceLayout}), and a chunk that compresses very well must not make more records than that.
 * A chunk is stored compressed only when its payload saves at least an eighth of its bytes: below
 * that, the flash saved is not worth a decompression on every hit (so a 4 KiB chunk never is).
 */
public final class ChunkCompression {
    /** A chunk is stored compressed only if its payload takes at most this share of its bytes (7/8). */
    static final int MIN_SAVING_DIVISOR = 8;
    /** The shortest payload: with its header, a record of a whole block. */
    public static final int MIN_PAYLOAD_BYTES = BlockDevice.BLOCK_SIZE - RecordFormat.HEADER_BYTES;
    private static final int PREFIX_BYTES = 8;

    private ChunkCompression() {
    }

    /**
     * The payload of {@code chunk}'s bytes (position to limit, left unchanged) in a new heap buffer,
     * or null when it saves less than an eighth of them.
     */
    public static ByteBuffer compress(ByteBuffer chunk) {
        int length = chunk.remaining();
        int most = length - length / MIN_SAVING_DIVISOR;
        if (most < MIN_PAYLOAD_BYTES) {
            return null; // its record would take a block whatever it compressed to: nothing saved
        }
        LZ4Compressor compressor = Codecs.COMPRESSOR;
        ByteBuffer out = ByteBuffer.allocate(Math.max(MIN_PAYLOAD_BYTES,
                PREFIX_BYTES + compressor.maxCompressedLength(length))).order(ByteOrder.LITTLE_ENDIAN);
        int block = compressor.compress(chunk, chunk.position(), length, out, PREFIX_BYTES, out.capacity() - PREFIX_BYTES);
        int payload = Math.max(MIN_PAYLOAD_BYTES, PREFIX_BYTES + block);
        if (payload > most) {
            return null;
        }
        out.putInt(0, block).putInt(4, crc(chunk));
        return out.limit(payload); // zeros after the block: a new heap buffer's
    }

    /**
     * Decompresses the payload {@code payload} (position to limit, left unchanged) into {@code into}
     * from its position, advancing it, and returns the chunk's length; throws (as damaged) when it is
     * not one, holds more than {@code maxLength} bytes, or decompresses to other bytes than were
     * compressed.
     */
    public static int decompress(ByteBuffer payload, ByteBuffer into, int maxLength) throws RecordMismatchException {
        int room = Math.min(maxLength, into.remaining());
        ByteBuffer prefix = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int block = payload.remaining() < PREFIX_BYTES ? -1 : prefix.getInt(payload.position());
        if (block < 1 || block > payload.remaining() - PREFIX_BYTES) {
            throw new RecordMismatchException("an LZ4 payload of " + payload.remaining() + " bytes names a block of "
                    + block + " bytes", true);
        }
        int from = into.position();
        int length;
        try {
            length = Codecs.DECOMPRESSOR.decompress(payload, payload.position() + PREFIX_BYTES, block, into, from, room);
        } catch (LZ4Exception | IndexOutOfBoundsException e) {
            throw new RecordMismatchException("an LZ4 payload of " + payload.remaining()
                    + " bytes does not decompress to a chunk of at most " + room + " bytes: " + e.getMessage(), true);
        } catch (LinkageError e) {
            throw new RecordMismatchException("an LZ4 payload cannot be decompressed here (lz4-java: " + e + ")");
        }
        if (crc(into.duplicate().limit(from + length).position(from)) != prefix.getInt(payload.position() + 4)) {
            throw new RecordMismatchException("an LZ4 payload decompresses to a chunk that fails its CRC32C", true);
        }
        into.position(from + length);
        return length;
    }

    private static int crc(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }

    /** Loaded on first use: a cache that compresses nothing never needs lz4-java. */
    private static final class Codecs {
        static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
        static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    }
}
