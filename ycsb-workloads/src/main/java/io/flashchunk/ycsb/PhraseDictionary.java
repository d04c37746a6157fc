package io.flashchunk.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * A few fixed phrases over a small alphabet: the compressible material of generated values.
 * Kept small so a 64 KB chunk pays for the first copy of each phrase once and then compresses
 * every later copy to a short back-reference.
 */
final class PhraseDictionary {
    /** All phrases together take about this much, whatever their length. */
    static final int TOTAL_BYTES = 1024;
    /** Lower-case letters and space: text-like bytes. */
    private static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyz ".getBytes(StandardCharsets.US_ASCII);

    private final byte[][] phrases;

    PhraseDictionary(int phraseLength, SplittableRandom random) {
        if (phraseLength < 1) {
            throw new IllegalArgumentException("phrase length must be at least 1, got " + phraseLength);
        }
        // At least four phrases, so long phrases still give values some variety.
        phrases = new byte[Math.max(4, TOTAL_BYTES / phraseLength)][phraseLength];
        for (byte[] phrase : phrases) {
            for (int i = 0; i < phraseLength; i++) {
                phrase[i] = ALPHABET[random.nextInt(ALPHABET.length)];
            }
        }
    }

    int phraseLength() {
        return phrases[0].length;
    }

    int size() {
        return phrases.length;
    }

    /** The phrase itself, not a copy: callers only read it. */
    byte[] phrase(int index) {
        return phrases[index];
    }
}
