package io.flashchunk.checkpoint.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.engine.CacheInspection;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.DeltaHeader;
import io.flashchunk.cache.format.SegmentLayout;
import io.flashchunk.cache.format.StartStamp;
import io.flashchunk.cache.format.Superblock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@code info}, {@code list} and {@code stats} for a cache of the engine, as lines for people
 * or one JSON document. The engine keeps no chunk's length or checksum in memory or in its
 * checkpoint: a listed entry's length comes from its segment's summary, and its record's own
 * checksums are what {@code verify --data} checks.
 */
final class Reports {
    /** By space, then file path, then position: how list prints them. */
    static final Comparator<CacheInspection.Entry> BY_FILE = Comparator.comparingInt(CacheInspection.Entry::space)
            .thenComparing(CacheInspection.Entry::path)
            .thenComparingLong(CacheInspection.Entry::position);

    private Reports() {
    }

    // ---------------------------------------------------------------- info

    static String infoText(CacheInspection cache) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cache.devices().size(); i++) {
            CacheInspection.Device device = cache.devices().get(i);
            out.append("device ").append(i).append(": ").append(device.path()).append(System.lineSeparator());
            out.append(deviceFields(cache, i).format()).append(System.lineSeparator());
        }
        TextFields summary = new TextFields("  ");
        summary.add("devices", cache.devices().size());
        UUID instance = cache.instance();
        summary.add("instance", instance == null ? "none, or the devices disagree" : instance);
        if (cache.setProblems().isEmpty()) {
            summary.add("set-problems", "none");
        }
        cache.setProblems().forEach(problem -> summary.add("set-problem", problem));
        summary.add("recovery", recoveryLine(cache));
        return out.append("summary:").append(System.lineSeparator()).append(summary.format()).toString();
    }

    /**
     * The start that last wrote a superblock: which devices the next start keeps depends on it (every
     * device of a cache shows the same run and start once its start settled; docs/operations.md,
     * "Changing the devices").
     */
    private static String startText(StartStamp stamp) {
        if (stamp.equals(StartStamp.NONE)) {
            return "none recorded (zeros, as a release before start stamps leaves them, or a stamp that fails its checksum)";
        }
        return "run " + hex(stamp.runId()) + ", start " + hex(stamp.startId()) + " after "
                + (stamp.previousStartId() == 0 ? "none" : hex(stamp.previousStartId())) + ", "
                + Instant.ofEpochMilli(stamp.startedMillis()) + ", "
                + (stamp.settled() ? "settled" : "unsettled (that start stopped while it wrote the superblocks)");
    }

    private static void putStart(ObjectNode superblock, StartStamp stamp) {
        if (stamp.equals(StartStamp.NONE)) {
            superblock.putNull("start");
            return;
        }
        superblock.putObject("start").put("runId", hex(stamp.runId())).put("startId", hex(stamp.startId()))
                .put("previousStartId", stamp.previousStartId() == 0 ? null : hex(stamp.previousStartId()))
                .put("time", Instant.ofEpochMilli(stamp.startedMillis()).toString())
                .put("settled", stamp.settled());
    }

    /** Ids as 16 hex digits: the same on every device of a start, and safe from JSON readers' doubles. */
    private static String hex(long id) {
        return String.format("%016x", id);
    }

    private static TextFields deviceFields(CacheInspection cache, int i) {
        CacheInspection.Device device = cache.devices().get(i);
        TextFields fields = new TextFields("  ");
        fields.add("format", "compact engine");
        Superblock superblock = device.superblock();
        if (superblock == null) {
            fields.add("superblock", device.superblockState().label() + ": " + device.superblockProblem());
            fields.add("device-blocks", device.capacityBlocks());
            return fields;
        }
        SegmentLayout segments = superblock.layout().segmentLayout();
        fields.add("superblock", "valid");
        fields.add("instance", superblock.instance());
        fields.add("space", superblock.spaceIndex() + " of " + superblock.spaceCount());
        fields.add("device-blocks", superblock.layout().deviceBlocks() + (superblock.layout().deviceBlocks()
                == device.capacityBlocks() ? "" : " (the device has " + device.capacityBlocks() + ")"));
        fields.add("area-blocks", superblock.layout().areaBlocks());
        fields.add("segments", segments.segments() + " of " + segments.segmentBytes() + " bytes from byte "
                + segments.firstByte());
        fields.add("record-sector-bytes", segments.sectorBytes() + (superblock.layout().cutShort()
                ? " (addresses reach " + superblock.layout().addressedBlocks() + " blocks of the device)" : ""));
        fields.add("segment-sequences-below", superblock.sequenceLimit() == 0
                ? "none reserved (a superblock of format version 3)" : superblock.sequenceLimit());
        fields.add("start", startText(superblock.stamp()));
        for (int area = 0; area < device.areas().size(); area++) {
            fields.add("area " + name(area), describeArea(cache, i, area));
            List<Recovery.DeltaAt> deltas = device.deltas(area);
            if (!deltas.isEmpty()) {
                DeltaHeader newest = deltas.get(deltas.size() - 1).header();
                fields.add("area " + name(area) + " deltas", deltas.size() + " after it, the newest sequence "
                        + newest.sequence() + ", " + Instant.ofEpochMilli(newest.timestampMillis()) + ", "
                        + newest.changes() + " changed segments, " + newest.forgotten() + " forgotten chunks, "
                        + newest.bodyBytes() + " body bytes");
            }
        }
        int used = cache.areaRecovered(i);
        int delta = cache.deltaRecovered(i);
        fields.add("recovery-uses", used < 0 ? "nothing (no valid checkpoint)" : "area " + name(used)
                + " (sequence " + device.areas().get(used).header().sequence() + (delta == 0 ? ""
                : ", then its delta " + delta + ": sequence " + device.deltas(used).get(delta - 1).header().sequence())
                + ")");
        if (cache.recovered()) {
            fields.add("durable-segments", cache.durableSegments(i));
        }
        return fields;
    }

    private static String describeArea(CacheInspection cache, int device, int area) {
        Recovery.AreaHeader header = cache.devices().get(device).areas().get(area);
        List<String> problems = cache.areaProblems(device, area);
        if (header.header() == null && problems.isEmpty()) {
            return "empty (never written, or wiped for a checkpoint that did not finish)";
        }
        String facts = header.header() == null ? "" : summary(header.header());
        return problems.isEmpty() ? "valid: " + facts
                : "invalid" + (facts.isEmpty() ? "" : " (" + facts + ")") + ": " + String.join("; ", problems);
    }

    private static String summary(CheckpointHeader header) {
        return "sequence " + header.sequence() + ", " + Instant.ofEpochMilli(header.timestampMillis()) + ", "
                + header.entryCount() + " entries, " + header.fileCount() + " files, " + header.bodyBytes()
                + " body bytes";
    }

    private static String recoveryLine(CacheInspection cache) {
        if (!cache.recovered()) {
            return "not run: the devices do not form one cache (the engine would format them, or refuse with strict)";
        }
        Recovery.Outcome outcome = cache.outcome();
        return outcome.restoredEntries() + " entries restored (" + outcome.skippedEntries() + " left out), "
                + outcome.restoredSegments() + " durable segments, " + outcome.files().size() + " files";
    }

    static String infoJson(CacheInspection cache) {
        ObjectNode json = Json.object().put("format", "compact");
        var devices = json.putArray("devices");
        for (int i = 0; i < cache.devices().size(); i++) {
            CacheInspection.Device device = cache.devices().get(i);
            ObjectNode node = devices.addObject().put("path", device.path()).put("capacityBlocks", device.capacityBlocks());
            Superblock superblock = device.superblock();
            ObjectNode sb = node.putObject("superblock").put("state", device.superblockState().label())
                    .put("problem", device.superblockProblem());
            if (superblock != null) {
                SegmentLayout segments = superblock.layout().segmentLayout();
                sb.put("instance", superblock.instance().toString()).put("spaceIndex", superblock.spaceIndex())
                        .put("spaceCount", superblock.spaceCount()).put("deviceBlocks", superblock.layout().deviceBlocks())
                        .put("areaBlocks", superblock.layout().areaBlocks()).put("segments", segments.segments())
                        .put("segmentBytes", segments.segmentBytes()).put("segmentsFromByte", segments.firstByte())
                        .put("sectorBytes", segments.sectorBytes())
                        .put("sequenceLimit", superblock.sequenceLimit());
                putStart(sb, superblock.stamp());
            }
            var areas = node.putArray("areas");
            for (int area = 0; area < device.areas().size(); area++) {
                CheckpointHeader header = device.areas().get(area).header();
                List<String> problems = cache.areaProblems(i, area);
                ObjectNode a = areas.addObject().put("name", name(area))
                        .put("state", problems.isEmpty() ? (header == null ? "empty" : "valid") : "invalid");
                a.putArray("problems").addAll(problems.stream().map(p -> Json.MAPPER.getNodeFactory().textNode(p))
                        .collect(Collectors.toUnmodifiableList()));
                if (header != null) {
                    a.put("sequence", header.sequence()).put("time", Instant.ofEpochMilli(header.timestampMillis()).toString())
                            .put("entries", header.entryCount()).put("files", header.fileCount())
                            .put("bodyBytes", header.bodyBytes());
                }
                var deltas = a.putArray("deltas");
                for (Recovery.DeltaAt delta : device.deltas(area)) {
                    DeltaHeader d = delta.header();
                    deltas.addObject().put("position", d.position()).put("sequence", d.sequence())
                            .put("time", Instant.ofEpochMilli(d.timestampMillis()).toString())
                            .put("changedSegments", d.changes()).put("forgottenChunks", d.forgotten())
                            .put("files", d.fileCount()).put("bodyBytes", d.bodyBytes()).put("block", delta.block());
                }
            }
            int used = cache.areaRecovered(i);
            node.put("recoveryArea", used < 0 ? null : name(used));
            node.put("recoveryDelta", cache.deltaRecovered(i));
        }
        ObjectNode summary = json.putObject("summary").put("devices", cache.devices().size())
                .put("instance", cache.instance() == null ? null : cache.instance().toString())
                .put("recovered", cache.recovered());
        summary.putArray("setProblems").addAll(cache.setProblems().stream()
                .map(p -> Json.MAPPER.getNodeFactory().textNode(p)).collect(Collectors.toUnmodifiableList()));
        if (cache.recovered()) {
            summary.put("restoredEntries", cache.outcome().restoredEntries())
                    .put("skippedEntries", cache.outcome().skippedEntries())
                    .put("durableSegments", cache.outcome().restoredSegments())
                    .put("files", cache.outcome().files().size());
        }
        return Json.write(json);
    }

    // ---------------------------------------------------------------- list

    /** The restored entries, sorted; segments whose summary is unreadable are named in {@code unreadable}. */
    static List<CacheInspection.Entry> entries(CacheInspection cache, String fileFilter, List<String> unreadable) {
        List<CacheInspection.Entry> entries = new ArrayList<>();
        cache.forEachEntry(entry -> {
            if (fileFilter == null || entry.path().contains(fileFilter)) {
                entries.add(entry);
            }
        }).forEach(unlisted -> unreadable.add(unlisted.message()));
        entries.sort(BY_FILE);
        return entries;
    }

    static String listText(List<CacheInspection.Entry> entries) {
        TextTable table = new TextTable("", "SPACE>", "POSITION>", "LENGTH>", "SEGMENT>", "OFFSET>", "FILE");
        for (CacheInspection.Entry entry : entries) {
            table.row(entry.space(), entry.position(), entry.length(), entry.segment(), entry.offset(), entry.path());
        }
        return table.format();
    }

    static String listJson(List<CacheInspection.Entry> entries) {
        var array = Json.array();
        for (CacheInspection.Entry entry : entries) {
            array.addObject().put("space", entry.space()).put("device", entry.device()).put("file", entry.path())
                    .put("fileId", entry.fileId()).put("position", entry.position()).put("length", entry.length())
                    .put("segment", entry.segment()).put("offsetInSegment", entry.offset());
        }
        return Json.write(array);
    }

    // ---------------------------------------------------------------- stats

    /** Per space: segments, durable ones, entries and chunk bytes; per file: entries and bytes, most entries first. */
    static String stats(CacheInspection cache, boolean json, List<String> unreadable) {
        int spaces = cache.devices().size();
        long[] entries = new long[spaces];
        long[] bytes = new long[spaces];
        Map<String, long[]> files = new TreeMap<>();
        cache.forEachEntry(entry -> {
            entries[entry.space()]++;
            bytes[entry.space()] += entry.length();
            long[] file = files.computeIfAbsent(entry.path(), path -> new long[2]);
            file[0]++;
            file[1] += entry.length();
        }).forEach(unlisted -> unreadable.add(unlisted.message()));
        List<Map.Entry<String, long[]>> byEntries = new ArrayList<>(files.entrySet());
        byEntries.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -e.getValue()[0]).thenComparing(Map.Entry::getKey));
        if (json) {
            ObjectNode out = Json.object().put("format", "compact");
            var spaceArray = out.putArray("spaces");
            for (int s = 0; s < spaces; s++) {
                Superblock superblock = cache.devices().get(s).superblock();
                spaceArray.addObject().put("space", s).put("device", cache.devices().get(s).path())
                        .put("segments", superblock == null ? 0 : superblock.layout().segments())
                        .put("durableSegments", cache.durableSegments(s)).put("entries", entries[s])
                        .put("chunkBytes", bytes[s]);
            }
            var fileArray = out.putArray("files");
            byEntries.forEach(e -> fileArray.addObject().put("file", e.getKey()).put("entries", e.getValue()[0])
                    .put("bytes", e.getValue()[1]));
            return Json.write(out) + System.lineSeparator();
        }
        TextTable spaceTable = new TextTable("", "SPACE>", "SEGMENTS>", "DURABLE>", "ENTRIES>", "CHUNK BYTES>", "DEVICE");
        for (int s = 0; s < spaces; s++) {
            Superblock superblock = cache.devices().get(s).superblock();
            spaceTable.row(s, superblock == null ? 0 : superblock.layout().segments(), cache.durableSegments(s),
                    entries[s], bytes[s], cache.devices().get(s).path());
        }
        TextTable fileTable = new TextTable("", "ENTRIES>", "BYTES>", "FILE");
        byEntries.forEach(e -> fileTable.row(e.getValue()[0], e.getValue()[1], e.getKey()));
        return "spaces:" + System.lineSeparator() + spaceTable.format() + System.lineSeparator() + "files:"
                + System.lineSeparator() + fileTable.format();
    }

    private static String name(int area) {
        return area == 0 ? "A" : "B";
    }
}
