package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.files.CachedFile;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.testing.Scratch;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Kills a cache under load with SIGKILL at random moments, many times, and restarts it each time.
 * After every crash: every entry recovery restored is served again while no file has changed, and
 * no chunk is ever served with bytes that differ from its file.
 */
class CrashRecoveryTest {
    private static final long BUDGET_NANOS = 40_000_000_000L;
    private static final int MAX_CRASHES = 10;
    /** Crashes every run makes, however slow the machine: three, so that at least two are checked exactly. */
    private static final int MIN_CRASHES = 3;

    /**
     * The checkpoint is the index's slots, which do not hold keys, so the promise is checked through
     * the cache: after each crash, every chunk of every
     * file is asked for, every hit must be its file's bytes, and as long as no file has changed the
     * hits are exactly the entries recovery restored (each recovered entry is served; none is
     * another key's or a torn record). A file changed while the cache is down keeps its chunks
     * unreachable (they are still restored and leave with their segments), so from then on only the
     * bytes are checked, and that the unchanged files' chunks come back.
     */
    @Test
    void killedAtRandomMomentsItServesEveryRecoveredEntryAndNeverAWrongByte() throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        // About 8 segments of 60 chunks for the 640 chunks of the files: segments are reclaimed and reused.
        try (RestartFixture fixture = new RestartFixture(2, 6L << 20)) {
            for (int f = 0; f < 10; f++) {
                Files.write(fixture.dataDir.resolve("nb-" + f + "-big-Data.db"), new byte[] {(byte) f});
            }
            long deadline = System.nanoTime() + BUDGET_NANOS;
            int crashes = 0;
            int exact = 0;
            long servedTotal = 0;
            boolean changed = false;
            // at least MIN_CRASHES however slow the machine; more while the budget lasts
            while (crashes < MIN_CRASHES || (crashes < MAX_CRASHES && System.nanoTime() < deadline)) {
                // Every other run is killed only after a checkpoint of its own is durable, so that a
                // starved machine still checks recoveries; the others at any moment from their start.
                runAndKill(fixture, crashes % 2 == 0, 300 + random.nextInt(1500));
                crashes++;
                if (crashes % 4 == 0) {
                    changeOneFile(fixture, random);
                    changed = true;
                }
                try (SegmentFlashCache cache = RestartFixture.startCompact(fixture.devices,
                        c -> c.checkpointIntervalMillis(3_600_000))) {
                    long served = serveEveryChunk(cache, fixture);
                    long recovered = cache.stats().recoveredEntries();
                    if (!changed) {
                        assertEquals(recovered, served, "every entry recovery restored is served, after crash " + crashes);
                        exact++;
                    } else {
                        assertTrue(served <= recovered, served + " served of " + recovered + " recovered");
                    }
                    assertEquals(0, cache.stats().engine().damagedRecords() + cache.stats().staleReads(),
                            "a recovered entry pointed at a torn or another record: " + cache.stats());
                    servedTotal += served;
                }
            }
            assertTrue(exact >= 2, "only " + exact + " crashes checked exactly");
            assertTrue(servedTotal > 0, "no crash left a checkpoint behind: the test proved nothing");
        }
    }

    /** Asks for every chunk of every data file as it is now; each hit must be its bytes. Returns the hits. */
    private static long serveEveryChunk(FlashCache cache, RestartFixture fixture) throws Exception {
        long served = 0;
        try (var listing = Files.list(fixture.dataDir)) {
            for (Path path : listing.sorted().toList()) {
                CachedFile file = cache.registerFile(FileIdentity.of(path));
                long seed = CrashWorkload.seed(file.identity());
                for (int i = 0; i < CrashWorkload.CHUNKS_PER_FILE; i++) {
                    long position = (long) i * CrashWorkload.CHUNK;
                    CachedChunk chunk = cache.get(file, position, CrashWorkload.CHUNK, false);
                    if (chunk != null) {
                        assertArrayEquals(ChunkContent.bytes(seed, position, CrashWorkload.CHUNK), ChunkContent.read(chunk),
                                path + "@" + position);
                        chunk.release();
                        served++;
                    }
                }
            }
        }
        return served;
    }

    /**
     * Starts the workload in a child JVM, lets it run {@code runMillis} from its start (or, with
     * {@code afterDurable}, from its first durable checkpoint), then kills it with SIGKILL.
     */
    private static void runAndKill(RestartFixture fixture, boolean afterDurable, long runMillis) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), CrashWorkload.class.getName(),
                fixture.dataDir.toString()));
        fixture.devices.forEach(device -> command.add(device.toString()));
        Path log = Scratch.dir().resolve("crash-workload.log");
        Process child = new ProcessBuilder(command).redirectError(log.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            if (ready == null || !ready.startsWith("READY")) {
                fail("the workload did not start: " + ready + "\n" + Files.readString(log));
            }
            if (afterDurable) {
                String durable = out.readLine();
                if (durable == null || !durable.equals("DURABLE")) {
                    fail("the workload ended or printed something else before a durable checkpoint: " + durable + "\n" + Files.readString(log));
                }
            }
            Thread.sleep(runMillis);
            if (!child.isAlive()) {
                fail("the workload died on its own (exit " + child.exitValue() + "): " + out.readLine());
            }
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no final checkpoint
            child.waitFor(30, TimeUnit.SECONDS);
        }
        assertEquals(137, child.exitValue(), "the workload must have been killed, not have failed: "
                + Files.readString(log).lines().filter(l -> l.contains("MISMATCH")).findFirst().orElse(""));
    }

    /** Touches or deletes a data file while the cache is down: its entries must not come back. */
    private static void changeOneFile(RestartFixture fixture, SplittableRandom random) throws Exception {
        List<Path> files;
        try (var listing = Files.list(fixture.dataDir)) {
            files = listing.sorted().toList();
        }
        Path victim = files.get(random.nextInt(files.size()));
        Files.setLastModifiedTime(victim, FileTime.fromMillis(Files.getLastModifiedTime(victim).toMillis() + 1000));
    }
}
