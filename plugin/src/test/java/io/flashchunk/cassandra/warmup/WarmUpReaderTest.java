package io.flashchunk.cassandra.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashchunk.testing.ManualClock;
import io.flashchunk.testing.RecordingReader;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class WarmUpReaderTest {
    private static final int QUERIES = DriverConnectionReads.QUERIES.size();
    private final WarmUpTable table = new WarmUpTable("ks", "t", List.of("id"));
    private final ManualClock clock = new ManualClock();
    private final RecordingReader reader = new RecordingReader();
    private final WarmUpCounts counts = new WarmUpCounts();
    private final long findUntil = clock.getAsLong() + Duration.ofSeconds(10).toNanos();
    private int keysFound;

    private WarmUpReader warmUpReader() {
        return new WarmUpReader(reader, () -> new WarmUpReader.Key(table,
                List.of(ByteBuffer.allocate(4).putInt(0, keysFound++))), counts, clock, findUntil, new Random(42));
    }

    private List<String> connectionReads() {
        return DriverConnectionReads.QUERIES.stream().map(cql -> "query " + cql).collect(Collectors.toList());
    }

    @Test
    void connectsAsADriverAtTheStartAndAgainEveryThousandPointReads() {
        warmUpReader().run(() -> reader.reads() >= 2500);

        List<String> requests = reader.requests();
        List<String> expected = new ArrayList<>(connectionReads());
        for (int connection = 0; connection < 3; connection++) {
            int from = expected.size();
            int reads = connection < 2 ? WarmUpReader.READS_A_CONNECTION : 500;
            assertTrue(requests.subList(from, from + reads).stream().allMatch(r -> r.startsWith("read ")),
                    "connection " + connection + ": not " + reads + " point reads");
            expected.addAll(requests.subList(from, from + reads));
            if (connection < 2) {
                expected.add("start over");
                expected.addAll(connectionReads());
            }
        }
        assertEquals(expected, requests);
        assertEquals(3, counts.connections.sum());
        assertEquals(3L * QUERIES, counts.ownTableReads.sum());
        assertEquals(2500, counts.reads.sum());
    }

    @Test
    void findsKeysFirstThenMostlyReadsThemAgainFindingOneNowAndThen() {
        int finding = 3000;
        int after = 16_000;
        warmUpReader().run(() -> {
            if (reader.reads() == finding && clock.getAsLong() < findUntil) {
                clock.advance(Duration.ofSeconds(10));
            }
            return reader.reads() >= finding + after;
        });

        List<Integer> keys = reader.requests().stream().filter(r -> r.startsWith("read "))
                .map(r -> Integer.parseInt(r.substring(5))).collect(Collectors.toList());
        // until findUntil: a new key each read while the sample has room, then the sample's
        for (int i = 0; i < WarmUpReader.KEYS_A_READER; i++) {
            assertEquals(i, keys.get(i));
        }
        assertTrue(keys.subList(WarmUpReader.KEYS_A_READER, finding).stream().allMatch(k -> k < WarmUpReader.KEYS_A_READER),
                "a key found while the sample was full");
        // after it: one key in NEW_KEY_EVERY found anew, the rest from the sample, which the new ones join
        Set<Integer> sampled = new HashSet<>();
        int found = 0;
        for (int k : keys.subList(finding, keys.size())) {
            if (k >= WarmUpReader.KEYS_A_READER + found) {
                assertEquals(WarmUpReader.KEYS_A_READER + found, k, "keys are read as they are found");
                found++;
            } else {
                sampled.add(k);
            }
        }
        assertTrue(found > after / WarmUpReader.NEW_KEY_EVERY * 0.8 && found < after / WarmUpReader.NEW_KEY_EVERY * 1.2,
                found + " keys found in " + after + " reads");
        assertTrue(sampled.stream().anyMatch(k -> k >= WarmUpReader.KEYS_A_READER), "a key found late never read again");
        assertEquals(WarmUpReader.KEYS_A_READER + found, counts.keysFound.sum());
    }

    @Test
    void failedReadsAreCountedAndTheReaderStillConnectsAgain() {
        reader.failing(true);
        warmUpReader().run(() -> reader.readAttempts() >= 2 * WarmUpReader.READS_A_CONNECTION + 100);

        assertEquals(3, counts.connections.sum());
        assertEquals(0, counts.ownTableReads.sum());
        assertEquals(0, counts.reads.sum());
        assertEquals(3L * QUERIES + 2 * WarmUpReader.READS_A_CONNECTION + 100, counts.failures());
        assertTrue(counts.givenUp());
        assertEquals(List.of("start over", "start over"), reader.requests());
        assertTrue(counts.summary().contains("(the last: java.lang.IllegalStateException: read "), counts.summary());
    }

    @Test
    void stopsBetweenTheConnectionReadsOnceOver() {
        warmUpReader().run(() -> reader.requests().size() >= 3);

        assertEquals(connectionReads().subList(0, 3), reader.requests());
        assertEquals(0, counts.reads.sum());
        assertEquals(1, counts.connections.sum());
    }
}
