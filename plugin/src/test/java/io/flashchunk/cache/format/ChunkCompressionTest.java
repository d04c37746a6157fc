package io.flashchunk.cache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The LZ4 form of a chunk, and records that hold it. */
class ChunkCompressionTest {
    private static final long KEY = 0x0000_0009_0000_4000L;
    private static final long SEQUENCE = 7;

    /** {@code random} bytes of the seed's, then zeros. */
    private static ByteBuffer chunk(int length, int random, long seed) {
        byte[] bytes = new byte[length];
        byte[] noise = new byte[random];
        new Random(seed).nextBytes(noise);
        System.arraycopy(noise, 0, bytes, 0, random);
        return ByteBuffer.wrap(bytes);
    }

    @Test
    void aChunkIsStoredCompressedOnlyWhenThatSavesAnEighthOrMore() {
        ByteBuffer compressible = chunk(16384, 4096, 1);
        ByteBuffer payload = ChunkCompression.compress(compressible);
        assertNotNull(payload);
        assertTrue(payload.remaining() < 4096 + 512, "about the random quarter: " + payload.remaining());
        assertEquals(0, compressible.position(), "the chunk is left as it was");
        assertNull(ChunkCompression.compress(chunk(16384, 16384, 2)), "random bytes do not compress");
        // 7/8 random: LZ4 saves a little less than an eighth, which is not enough.
        assertNull(ChunkCompression.compress(chunk(16384, 16384 - 16384 / 8 + 64, 3)));
        assertNotNull(ChunkCompression.compress(chunk(16384, 16384 - 16384 / 8 - 512, 3)));
    }

    @Test
    void aRecordOfAChunkThatCompressesWellStillTakesABlockAndAFourKiBChunkIsNeverCompressed() throws Exception {
        ByteBuffer zeros = ByteBuffer.allocate(16384);
        ByteBuffer payload = ChunkCompression.compress(zeros);
        assertEquals(ChunkCompression.MIN_PAYLOAD_BYTES, payload.remaining(), "padded to a block with the header");
        assertEquals(4096, RecordFormat.recordBytes(payload.remaining(), RecordAddress.MIN_SECTOR_BYTES));
        ByteBuffer into = ByteBuffer.allocate(16384);
        assertEquals(16384, ChunkCompression.decompress(payload, into, 16384));
        assertEquals(zeros, into.flip());
        assertNull(ChunkCompression.compress(ByteBuffer.allocate(4096)), "its record could only be a block: no saving");

        ByteBuffer wrongLength = payload.duplicate();
        wrongLength.order(ByteOrder.LITTLE_ENDIAN).putInt(0, payload.remaining());
        RecordMismatchException e = assertThrows(RecordMismatchException.class,
                () -> ChunkCompression.decompress(wrongLength, ByteBuffer.allocate(16384), 16384));
        assertTrue(e.damaged() && e.getMessage().contains("names a block of " + payload.remaining()), e.getMessage());
    }

    @Test
    void aCompressedChunkComesBackWholeIntoTheBufferGivenAndNoLonger() throws Exception {
        ByteBuffer chunk = chunk(65536, 1000, 4);
        ByteBuffer payload = ChunkCompression.compress(chunk);
        ByteBuffer into = ByteBuffer.allocate(70000);
        into.position(10);
        assertEquals(65536, ChunkCompression.decompress(payload, into, 65536));
        assertEquals(65546, into.position(), "advanced past the chunk");
        assertEquals(chunk, into.flip().position(10));
        assertEquals(0, payload.position(), "the payload is left as it was");

        RecordMismatchException tooLong = assertThrows(RecordMismatchException.class,
                () -> ChunkCompression.decompress(payload, ByteBuffer.allocate(70000), 16384));
        assertTrue(tooLong.damaged() && tooLong.getMessage().contains("at most 16384 bytes"), tooLong.getMessage());
        ByteBuffer otherChunk = ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
        otherChunk.put(4, (byte) (otherChunk.get(4) ^ 1)); // the chunk's CRC32C, as a faulty library would leave it
        RecordMismatchException wrong = assertThrows(RecordMismatchException.class,
                () -> ChunkCompression.decompress(otherChunk, ByteBuffer.allocate(65536), 65536));
        assertTrue(wrong.damaged() && wrong.getMessage().contains("fails its CRC32C"), wrong.getMessage());
        ByteBuffer garbage = ByteBuffer.wrap(new byte[] {4, 0, 0, 0, (byte) 0xf0, 1, 2, 3});
        assertTrue(assertThrows(RecordMismatchException.class,
                () -> ChunkCompression.decompress(garbage, ByteBuffer.allocate(16384), 16384)).damaged());
    }

    @Test
    void aRecordKeepsItsFormAndOneOfAFormThisReleaseDoesNotKnowIsRefused() throws Exception {
        ByteBuffer segment = ByteBuffer.allocate(1 << 16);
        ByteBuffer chunk = chunk(16384, 2000, 5);
        ByteBuffer payload = ChunkCompression.compress(chunk);
        int bytes = RecordFormat.write(segment, 0, KEY, SEQUENCE, payload, ChunkForm.LZ4, RecordAddress.MIN_SECTOR_BYTES);
        assertEquals(RecordFormat.recordBytes(payload.remaining(), RecordAddress.MIN_SECTOR_BYTES), bytes);
        int rawAt = bytes;
        RecordFormat.write(segment, rawAt, KEY + 1, SEQUENCE, chunk, RecordAddress.MIN_SECTOR_BYTES);

        assertEquals(payload, RecordFormat.check(segment, 0, KEY, SEQUENCE));
        assertEquals(ChunkForm.LZ4, RecordFormat.form(segment, 0));
        assertEquals(chunk, RecordFormat.check(segment, rawAt, KEY + 1, SEQUENCE));
        assertEquals(ChunkForm.RAW, RecordFormat.form(segment, rawAt));
        assertEquals(ChunkForm.LZ4, RecordFormat.form(segment.duplicate().order(ByteOrder.LITTLE_ENDIAN), 0),
                "read in place whatever the buffer's byte order");
        assertEquals(ChunkForm.RAW, RecordFormat.form(segment.duplicate().order(ByteOrder.LITTLE_ENDIAN), rawAt));
        assertEquals(RecordFormat.HEADER_BYTES + payload.remaining(), RecordFormat.end(segment, 0));
        assertEquals(rawAt + RecordFormat.HEADER_BYTES + 16384, RecordFormat.end(segment, rawAt));

        // A header of a form to come (code 2), its CRC right: refused, not read as either form.
        ByteBuffer header = segment.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(4, 2 << 24 | payload.remaining());
        CRC32C crc = new CRC32C();
        crc.update(Arrays.copyOfRange(segment.array(), 0, 28));
        header.putInt(28, (int) crc.getValue());
        RecordMismatchException e = assertThrows(RecordMismatchException.class,
                () -> RecordFormat.check(segment, 0, KEY, SEQUENCE));
        assertTrue(e.getMessage().contains("form 2"), e.getMessage());
        // A header that fails its CRC says nothing of where the record ends.
        header.put(5, (byte) (header.get(5) ^ 1));
        assertEquals(-1, RecordFormat.end(segment, 0));
    }

    @Test
    void aReleaseThatKnowsNoFormsReadsACompressedRecordsLengthAsLongerThanAnyChunk() {
        // What releases before forms read at byte 4: the whole int as the chunk's length.
        ByteBuffer segment = ByteBuffer.allocate(1 << 16);
        ByteBuffer payload = ChunkCompression.compress(chunk(16384, 100, 6));
        RecordFormat.write(segment, 0, KEY, SEQUENCE, payload, ChunkForm.LZ4, RecordAddress.MIN_SECTOR_BYTES);
        int asLength = segment.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(4);
        assertTrue(asLength > RecordFormat.MAX_CHUNK_BYTES + RecordFormat.HEADER_BYTES, "length read " + asLength);
    }
}
