package io.flashchunk.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * An endless byte stream that alternates dictionary phrases (which LZ4 replaces with short
 * back-references) with runs of random characters (which LZ4 cannot shrink). The random share of
 * all bytes written sets how well the stream compresses. Values are consecutive slices of the
 * stream, so packing them into chunks, as Cassandra does, sees the same mix at any value length.
 *
 * <p>Every byte is printable ASCII, so values are valid UTF-8 and fit CQL {@code text} columns.
 */
final class MixedByteStream {
    /*
     * 64 symbols, 6 random bits each. LZ4 only finds repeats of 4 bytes or more and does no
     * entropy coding, so runs over this alphabet stay as incompressible as random bytes.
     */
    private static final byte[] RANDOM_ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);
    private static final int BITS_PER_SYMBOL = 6;
    private static final int SYMBOLS_PER_LONG = Long.SIZE / BITS_PER_SYMBOL;

    private final PhraseDictionary dictionary;
    private final double randomShare;
    private final SplittableRandom random;
    private final byte[] randomRun;

    private byte[] segment;
    private int segmentLength;
    private int segmentPosition;
    private boolean nextIsPhrase = true;
    /** Random bytes owed so far; paying them after each phrase keeps every chunk at the share. */
    private double randomDebt;

    MixedByteStream(PhraseDictionary dictionary, double randomShare, SplittableRandom random) {
        if (!(randomShare >= 0.0 && randomShare < 1.0)) {
            throw new IllegalArgumentException("random share must be in [0, 1), got " + randomShare);
        }
        this.dictionary = dictionary;
        this.randomShare = randomShare;
        this.random = random;
        // Random runs longer than this buffer (shares near 1) are written in slices of it.
        this.randomRun = new byte[Math.max(64, dictionary.phraseLength() * 8)];
        this.segment = randomRun;
    }

    /** Writes the next {@code length} bytes of the stream into {@code target} from {@code offset}. */
    void fill(byte[] target, int offset, int length) {
        int end = offset + length;
        while (offset < end) {
            if (segmentPosition == segmentLength) {
                nextSegment();
            }
            int n = Math.min(end - offset, segmentLength - segmentPosition);
            System.arraycopy(segment, segmentPosition, target, offset, n);
            segmentPosition += n;
            offset += n;
        }
    }

    private void nextSegment() {
        segmentPosition = 0;
        int owed = (int) randomDebt;
        if (!nextIsPhrase && owed > 0) {
            segmentLength = Math.min(owed, randomRun.length);
            fillRandom(randomRun, segmentLength);
            segment = randomRun;
            randomDebt -= segmentLength;
            // A share near 1 owes more than one run holds: keep paying before the next phrase.
            nextIsPhrase = randomDebt < 1.0;
            return;
        }
        segment = dictionary.phrase(random.nextInt(dictionary.size()));
        segmentLength = segment.length;
        // Each phrase byte written owes share / (1 - share) random bytes to keep the overall share.
        randomDebt += segmentLength * randomShare / (1.0 - randomShare);
        nextIsPhrase = false;
    }

    private void fillRandom(byte[] bytes, int length) {
        int i = 0;
        while (i < length) {
            long bits = random.nextLong();
            for (int s = 0; s < SYMBOLS_PER_LONG && i < length; s++, i++, bits >>>= BITS_PER_SYMBOL) {
                bytes[i] = RANDOM_ALPHABET[(int) (bits & (RANDOM_ALPHABET.length - 1))];
            }
        }
    }
}
