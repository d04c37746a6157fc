package io.flashchunk.checkpoint.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeviceCommandTest {
    /** Three whole blocks and a partial one, which must not count as a block. */
    private static final int FILE_BYTES = 3 * 4096 + 100;

    private Path directory;

    @BeforeEach
    void createScratchDirectory() throws IOException {
        directory = ScratchFiles.newDirectory();
    }

    @Test
    void reportsARegularFile() throws IOException {
        Path file = ScratchFiles.fileOfSize(directory, "cache.img", FILE_BYTES);

        CommandRun run = CommandRun.of("device", file.toString());

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        Map<String, String> fields = parseLines(run.out());
        assertEquals(file.toString(), fields.get("path"));
        assertEquals("regular file", fields.get("kind"));
        assertEquals(String.valueOf(FILE_BYTES), fields.get("size-bytes"));
        assertEquals("3", fields.get("blocks-4096"));
        assertEquals("yes", fields.get("direct-read"), "target/ is on a disk file system, which takes O_DIRECT");
        assertEquals("none (libblkid)", fields.get("signatures"));
    }

    @Test
    void reportsTheSignaturesLibblkidFinds() throws Exception {
        Path file = ScratchFiles.fileOfSize(directory, "bcache.img", 64 << 20);
        Process makeBcache = new ProcessBuilder("make-bcache", "-C", file.toString()).redirectErrorStream(true).start();
        String made = new String(makeBcache.getInputStream().readAllBytes());
        assertEquals(0, makeBcache.waitFor(), made);

        CommandRun run = CommandRun.of("device", file.toString());

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("bcache (other, at byte 4120)", parseLines(run.out()).get("signatures"));
        JsonNode json = new ObjectMapper().readTree(CommandRun.of("device", file.toString(), "--json").out());
        assertEquals("bcache", json.get("signatures").get(0).get("type").textValue(), json.toString());
        assertEquals(4120, json.get("signatures").get(0).get("offset").longValue(), json.toString());
    }

    @Test
    void linesUpTheValues() throws IOException {
        Path file = ScratchFiles.fileOfSize(directory, "cache.img", FILE_BYTES);

        String[] lines = CommandRun.of("device", file.toString()).out().split("\n");

        assertEquals(6, lines.length, String.join("\n", lines));
        int valueColumn = lines[0].indexOf(file.toString());
        for (String line : lines) {
            assertTrue(line.indexOf(':') < valueColumn, line);
            assertTrue(line.charAt(valueColumn) != ' ' && line.charAt(valueColumn - 1) == ' ',
                    "value not at column " + valueColumn + ": '" + line + "'");
        }
    }

    @Test
    void rejectsAMissingPath() {
        Path missing = directory.resolve("no-such-device");

        CommandRun run = CommandRun.of("device", missing.toString());

        assertEquals(2, run.exitCode());
        assertEquals("", run.out());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains(missing.toString()), run.err());
    }

    @Test
    void rejectsADirectory() {
        CommandRun run = CommandRun.of("device", directory.toString());

        assertEquals(2, run.exitCode());
        assertEquals("", run.out());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains(directory.toString()), run.err());
        assertTrue(run.err().contains("directory"), run.err());
    }

    @Test
    void rejectsACharacterDevice() {
        CommandRun run = CommandRun.of("device", "/dev/null");

        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("/dev/null") && run.err().contains("neither a regular file nor a block device"), run.err());
    }

    @Test
    void printsTheSameFactsAsJson() throws IOException {
        Path file = ScratchFiles.fileOfSize(directory, "cache.img", FILE_BYTES);

        CommandRun run = CommandRun.of("device", file.toString(), "--json");

        assertEquals(0, run.exitCode(), run.err());
        assertEquals(1, run.out().lines().count(), "one JSON object on one line: " + run.out());
        JsonNode report = new ObjectMapper().readTree(run.out());
        assertEquals(file.toString(), report.get("path").textValue());
        assertEquals("regular file", report.get("kind").textValue());
        assertEquals(FILE_BYTES, report.get("sizeBytes").longValue());
        assertEquals(4096, report.get("blockBytes").intValue());
        assertEquals(3, report.get("blocks").longValue());
        assertTrue(report.get("directRead").isBoolean() && report.get("directRead").booleanValue(), run.out());
        assertTrue(report.get("directReadError").isNull(), run.out());
        assertTrue(report.get("signatures").isArray() && report.get("signatures").isEmpty(), run.out());
        assertTrue(report.get("signaturesError").isNull(), run.out());
    }

    @Test
    void jsonEscapesAwkwardFileNames() throws IOException {
        String name = "quote\" back\\slash\ttab\nnewline\u0001ctrl.img";
        Path file = ScratchFiles.fileOfSize(directory, name, 4096);

        CommandRun run = CommandRun.of("device", "--json", file.toString());

        assertEquals(0, run.exitCode(), run.err());
        assertEquals(1, run.out().lines().count(), "control characters must be escaped: " + run.out());
        assertEquals(file.toString(), new ObjectMapper().readTree(run.out()).get("path").textValue());
    }

    @Test
    void withoutASubcommandPrintsUsage() {
        CommandRun run = CommandRun.of();

        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("device"), run.err());
    }

    /** "key: value" lines into a map, values trimmed of the alignment padding. */
    private static Map<String, String> parseLines(String out) {
        Map<String, String> fields = new LinkedHashMap<>();
        out.lines().forEach(line -> {
            int colon = line.indexOf(':');
            assertTrue(colon > 0, "not a key: value line: " + line);
            fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
        });
        return fields;
    }
}
