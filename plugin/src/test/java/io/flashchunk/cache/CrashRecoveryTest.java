package io.flashchunk.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.flashchunk.cache.checkpoint.CheckpointFormatException;
import io.flashchunk.cache.checkpoint.CheckpointImage;
import io.flashchunk.cache.checkpoint.CheckpointReader;
import io.flashchunk.cache.checkpoint.SpaceLayout;
import io.flashchunk.cache.checkpoint.Superblock;
import io.flashchunk.cache.index.CachedFile;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import io.flashchunk.device.BlockDevices;
import io.flashchunk.device.DeviceSpec;
import io.flashchunk.device.IoEngine;
import io.flashchunk.testing.Scratch;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Kills a cache under load with SIGKILL at random moments, many times, and restarts it each time
 * (each engine in a test of its own).
 * After every crash: every entry of the last completed checkpoint whose file is unchanged is served
 * again, and no chunk is ever served with bytes that differ from its file.
 */
class CrashRecoveryTest {
    private static final long BUDGET_NANOS = 40_000_000_000L;
    private static final int MAX_CRASHES = 10;

    @Test
    void sigkillAtRandomMomentsNeverLosesACheckpointOrServesAWrongByte() throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        try (RestartFixture fixture = new RestartFixture(2, 12L << 20)) {
            for (int f = 0; f < 10; f++) {
                Files.write(fixture.dataDir.resolve("nb-" + f + "-big-Data.db"), new byte[] {(byte) f});
            }
            long deadline = System.nanoTime() + BUDGET_NANOS;
            int crashes = 0;
            long recoveredTotal = 0;
            while (crashes < MAX_CRASHES && System.nanoTime() < deadline) {
                runAndKill(fixture, "classic", 300 + random.nextInt(1500));
                crashes++;
                if (crashes % 3 == 0) {
                    changeOneFile(fixture, random);
                }
                Map<String, Map<Long, Integer>> expected = lastCheckpoint(fixture);
                recoveredTotal += verifyRecovery(fixture, expected);
            }
            assertTrue(crashes >= 3, "only " + crashes + " crashes in the time budget");
            assertTrue(recoveredTotal > 0, "no crash left a checkpoint behind: the test proved nothing");
        }
    }

    /**
     * The compact engine under the same SIGKILLs. Its checkpoint is the index's slots, which do not
     * hold keys, so the promise is checked through the cache: after each crash, every chunk of every
     * file is asked for, every hit must be its file's bytes, and as long as no file has changed the
     * hits are exactly the entries recovery restored (each recovered entry is served; none is
     * another key's or a torn record). A file changed while the cache is down keeps its chunks
     * unreachable (they are still restored and leave with their segments), so from then on only the
     * bytes are checked, and that the unchanged files' chunks come back.
     */
    @Test
    void theCompactEngineKilledAtRandomMomentsServesEveryRecoveredEntryAndNeverAWrongByte() throws Exception {
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
            while (crashes < MAX_CRASHES && System.nanoTime() < deadline) {
                runAndKill(fixture, "compact", 300 + random.nextInt(1500));
                crashes++;
                if (crashes % 4 == 0) {
                    changeOneFile(fixture, random);
                    changed = true;
                }
                try (CompactChunkCache cache = RestartFixture.startCompact(fixture.devices,
                        c -> c.checkpointIntervalMillis(3_600_000))) {
                    long served = serveEveryChunk(cache, fixture);
                    long recovered = cache.stats().recoveredEntries();
                    if (!changed) {
                        assertEquals(recovered, served, "every entry recovery restored is served, after crash " + crashes);
                        exact++;
                    } else {
                        assertTrue(served <= recovered, served + " served of " + recovered + " recovered");
                    }
                    assertEquals(0, cache.stats().checksumErrors() + cache.stats().staleReads(),
                            "a recovered entry pointed at a torn or another record: " + cache.stats());
                    servedTotal += served;
                }
            }
            assertTrue(crashes >= 3, "only " + crashes + " crashes in the time budget");
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

    /** Starts the workload on {@code engine} in a child JVM, lets it run, then kills it with SIGKILL. */
    private static void runAndKill(RestartFixture fixture, String engine, long runMillis) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), CrashWorkload.class.getName(), engine,
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

    /** What the newest valid checkpoint of each space holds, for files that are unchanged: path -> position -> crc. */
    private static Map<String, Map<Long, Integer>> lastCheckpoint(RestartFixture fixture) throws Exception {
        Map<String, Map<Long, Integer>> expected = new HashMap<>();
        for (int s = 0; s < fixture.devices.size(); s++) {
            try (BlockDevice device = BlockDevices.open(DeviceSpec.of(fixture.devices.get(s)).withEngine(IoEngine.LIBAIO))) {
                Superblock superblock = CheckpointReader.readSuperblock(device);
                SpaceLayout layout = superblock.layout();
                CheckpointImage newest = null;
                for (int area = 0; area < 2; area++) {
                    try {
                        CheckpointImage image = CheckpointReader.read(device, layout, area, superblock.instance(), s, null);
                        if (newest == null || image.header().sequence() > newest.header().sequence()) {
                            newest = image;
                        }
                    } catch (CheckpointFormatException e) {
                        // torn or empty area: the other one counts
                    }
                }
                if (newest == null) {
                    continue;
                }
                for (int i = 0; i < newest.entryCount(); i++) {
                    FileIdentity identity = newest.files().get(newest.fileId(i));
                    if (unchanged(identity)) {
                        expected.computeIfAbsent(identity.path(), p -> new HashMap<>())
                                .put(io.flashchunk.cache.index.ChunkKeys.position(newest.key(i)), newest.crc(i));
                    }
                }
            }
        }
        return expected;
    }

    private static boolean unchanged(FileIdentity recorded) {
        try {
            return FileIdentity.of(Path.of(recorded.path())).equals(recorded);
        } catch (Exception e) {
            return false;
        }
    }

    /** Restarts the cache in this JVM and checks it serves exactly and correctly what the checkpoint held. */
    private static long verifyRecovery(RestartFixture fixture, Map<String, Map<Long, Integer>> expected) throws Exception {
        long expectedEntries = expected.values().stream().mapToLong(Map::size).sum();
        try (FlashChunkCache cache = fixture.start(c -> c.checkpointIntervalMillis(3_600_000))) {
            assertEquals(expectedEntries, cache.stats().recoveredEntries(),
                    "recovery must bring back every entry of the last checkpoint whose file is unchanged");
            for (Map.Entry<String, Map<Long, Integer>> file : expected.entrySet()) {
                CachedFile cached = cache.registerFile(Path.of(file.getKey()));
                long seed = CrashWorkload.seed(cached.identity());
                for (long position : file.getValue().keySet()) {
                    CachedChunk chunk = cache.get(cached, position);
                    assertNotNull(chunk, file.getKey() + "@" + position + " was in the last checkpoint");
                    assertArrayEquals(ChunkContent.bytes(seed, position, CrashWorkload.CHUNK), ChunkContent.read(chunk),
                            file.getKey() + "@" + position);
                    chunk.release();
                }
            }
            assertEquals(0, cache.stats().checksumErrors(), "a recovered entry pointed at other bytes");
        }
        return expectedEntries;
    }
}
