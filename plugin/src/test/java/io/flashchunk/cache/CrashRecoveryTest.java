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
 * Kills a cache under load with SIGKILL at random moments, many times, and restarts it each time.
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
                runAndKill(fixture, 300 + random.nextInt(1500));
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

    /** Starts the workload in a child JVM, lets it run, then kills it with SIGKILL. */
    private static void runAndKill(RestartFixture fixture, long runMillis) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), CrashWorkload.class.getName(), fixture.dataDir.toString()));
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
