package io.flashchunk.cache.engine;

import io.flashchunk.buffer.AlignedBufferPool;
import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.checkpoint.Recovery;
import io.flashchunk.cache.checkpoint.RecoveryProblem;
import io.flashchunk.cache.driver.StorageDriver;
import io.flashchunk.cache.files.ChunkKeys;
import io.flashchunk.cache.files.FileIdentity;
import io.flashchunk.cache.format.CheckpointFormatException;
import io.flashchunk.cache.format.CheckpointHeader;
import io.flashchunk.cache.format.RecordAddress;
import io.flashchunk.cache.format.RecordFormat;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.format.Superblock;
import io.flashchunk.cache.index.ChunkIndex;
import io.flashchunk.cache.read.FlashReadGate;
import io.flashchunk.cache.read.FlashReadPolicy;
import io.flashchunk.cache.read.SegmentReader;
import io.flashchunk.cache.space.AddressSpace;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.DeviceContent;
import io.flashchunk.cache.space.DeviceSet;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import io.flashchunk.device.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A cache's devices as the engine's start and recovery see them, read-only (the checkpoint tool's
 * view): each device's superblock, whether the devices form one cache in the order given, both
 * checkpoint areas of each space, and what recovery restores, into parts wired as the engine wires
 * its own ({@link EngineParts}) and never written: nothing here writes to a device. Every rule is
 * the engine's (the device-set rule of {@link DeviceSet}, the area judgement and recovery of
 * {@link Recovery}, the summary and record checks of the reader).
 */
public final class CacheInspection {
    /** How long a device read may take before the tool calls the device unreadable. */
    public static final long READ_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * One device: its superblock or why there is none usable, and both areas as recovery judges them.
     */
    public static final class Device {
        private final String path;
        private final long capacityBlocks;
        private final SuperblockState superblockState;
        private final Superblock superblock;
        private final String superblockProblem;
        private final List<Recovery.AreaHeader> areas;
        private final List<List<Recovery.DeltaAt>> deltas;

        /**
         * @param superblockState valid; blank (all zeros); or invalid (unreadable, another format, corrupt)
         * @param deltas          per area, the deltas after its full checkpoint, as recovery finds them
         */
        public Device(String path, long capacityBlocks, SuperblockState superblockState, Superblock superblock,
                      String superblockProblem, List<Recovery.AreaHeader> areas, List<List<Recovery.DeltaAt>> deltas) {
            this.deltas = deltas;
            this.path = path;
            this.capacityBlocks = capacityBlocks;
            this.superblockState = superblockState;
            this.superblock = superblock;
            this.superblockProblem = superblockProblem;
            this.areas = areas;
        }

        public String path() {
            return path;
        }

        public long capacityBlocks() {
            return capacityBlocks;
        }

        public SuperblockState superblockState() {
            return superblockState;
        }

        public Superblock superblock() {
            return superblock;
        }

        public String superblockProblem() {
            return superblockProblem;
        }

        public List<Recovery.AreaHeader> areas() {
            return areas;
        }

        /** The deltas after area {@code area}'s full checkpoint, in order (none for an empty or invalid area). */
        public List<Recovery.DeltaAt> deltas(int area) {
            return deltas.isEmpty() ? List.of() : deltas.get(area);
        }

        @Override
        public String toString() {
            return "Device[path=" + path + ", capacityBlocks=" + capacityBlocks + ", superblockState=" + superblockState
                    + ", superblock=" + superblock + ", superblockProblem=" + superblockProblem
                    + ", areas=" + areas + "]";
        }
    }

    /** One restored entry: where its record is, and the chunk its segment's summary says it holds. */
    public static final class Entry {
        private final int space;
        private final String device;
        private final int segment;
        private final int sector;
        private final int sectorBytes;
        private final long key;
        private final int length;
        private final FileIdentity file;

        /** @param sectorBytes the space's sector ({@link io.flashchunk.cache.format.SegmentLayout#sectorBytes}) */
        public Entry(int space, String device, int segment, int sector, int sectorBytes, long key, int length,
                     FileIdentity file) {
            this.space = space;
            this.device = device;
            this.segment = segment;
            this.sector = sector;
            this.sectorBytes = sectorBytes;
            this.key = key;
            this.length = length;
            this.file = file;
        }

        public int space() {
            return space;
        }

        public String device() {
            return device;
        }

        public int segment() {
            return segment;
        }

        public int sector() {
            return sector;
        }

        public long key() {
            return key;
        }

        public int length() {
            return length;
        }

        public FileIdentity file() {
            return file;
        }

        public int fileId() {
            return ChunkKeys.fileId(key);
        }

        public long position() {
            return ChunkKeys.position(key);
        }

        /** The record's first byte within its segment. */
        public long offset() {
            return (long) sector * sectorBytes;
        }

        /** The file's path, or a placeholder when the checkpoints name no such file (its chunks are never served). */
        public String path() {
            return file == null ? "(file " + fileId() + ": not in the checkpoint's file table)" : file.path();
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Entry)) {
                return false;
            }
            Entry other = (Entry) o;
            return space == other.space
                    && Objects.equals(device, other.device)
                    && segment == other.segment
                    && sector == other.sector
                    && sectorBytes == other.sectorBytes
                    && key == other.key
                    && length == other.length
                    && Objects.equals(file, other.file);
        }

        @Override
        public int hashCode() {
            return Objects.hash(space, device, segment, sector, sectorBytes, key, length, file);
        }

        @Override
        public String toString() {
            return "Entry[space=" + space + ", device=" + device + ", segment=" + segment + ", sector=" + sector
                    + ", key=" + key + ", length=" + length + ", file=" + file + "]";
        }
    }

    public interface EntryVisitor {
        void entry(Entry entry);
    }

    private final List<Device> devices;
    private final List<String> setProblems;
    /** The recovered parts; null when recovery did not run. */
    private final EngineParts parts;
    private final Recovery.Outcome outcome;

    private CacheInspection(List<Device> devices, List<String> setProblems, EngineParts parts,
                            Recovery.Outcome outcome) {
        this.devices = devices;
        this.setProblems = setProblems;
        this.parts = parts;
        this.outcome = outcome;
    }

    /** A driver for reading one of the tool's read-only devices, waiting {@link #READ_TIMEOUT_NANOS} at most. */
    public static StorageDriver driver(BlockDevice device) {
        return new StorageDriver(device, 1, READ_TIMEOUT_NANOS);
    }

    /**
     * Reads the devices (opened read-only, in the cache's configured order) and runs recovery on
     * them when they form one cache.
     */
    public static CacheInspection load(List<StorageDriver> drivers) {
        List<Block0> found = drivers.stream().map(CacheInspection::block0).collect(Collectors.toUnmodifiableList());
        // a list that holds nulls (devices that are not the cache's)
        List<Superblock> superblocks = found.stream().map(Block0::superblock).collect(Collectors.toList());
        List<String> setProblems = setProblems(drivers, superblocks);
        List<Device> devices = new ArrayList<>();
        boolean whole = setProblems.isEmpty() && found.stream().allMatch(block -> block.problem() == null);
        List<AddressSpace> spaces = new ArrayList<>();
        for (int i = 0; i < drivers.size(); i++) {
            StorageDriver driver = drivers.get(i);
            Superblock superblock = superblocks.get(i);
            List<Recovery.AreaHeader> headers = new ArrayList<>();
            List<List<Recovery.DeltaAt>> deltas = new ArrayList<>();
            if (superblock != null) {
                AddressSpace space = AddressSpace.of(i, driver, superblock.layout());
                spaces.add(space);
                for (int area = 0; area < 2; area++) {
                    Recovery.AreaHeader header = Recovery.readHeader(space, superblock.instance(), area);
                    headers.add(header);
                    deltas.add(header.header() == null ? List.of()
                            : Recovery.deltas(space, superblock.instance(), area, header.header()));
                }
            }
            devices.add(new Device(driver.path(), driver.capacityBlocks(), found.get(i).state(), superblock,
                    found.get(i).problem(), List.copyOf(headers), List.copyOf(deltas)));
        }
        if (!whole) {
            return new CacheInspection(List.copyOf(devices), setProblems, null, null);
        }
        long buckets = buckets(devices);
        String tooLarge = indexTooLarge(buckets);
        if (tooLarge != null) {
            List<String> problems = new ArrayList<>(setProblems);
            problems.add(tooLarge);
            return new CacheInspection(List.copyOf(devices), List.copyOf(problems), null, null);
        }
        // Each read in the caller's thread, waited for as long as any read here: a slow device is not a broken one.
        EngineParts parts = EngineParts.readOnly(new AddressSpaces(spaces), EngineParts.Spec.inspection(
                buckets, new AlignedBufferPool(Integer.highestOneBit(RecordFormat.recordBytes(
                        RecordFormat.MAX_CHUNK_BYTES, RecordAddress.MAX_SECTOR_BYTES)) * 2,
                        8L << 20), new FlashReadPolicy(true, READ_TIMEOUT_NANOS, FlashReadGate.OPEN, System::nanoTime)));
        Recovery.Outcome outcome;
        try {
            outcome = parts.recover(superblocks.get(0).instance());
        } catch (RuntimeException e) {
            List<String> problems = new ArrayList<>(setProblems);
            problems.add("recovery failed: " + e);
            return new CacheInspection(List.copyOf(devices), List.copyOf(problems), null, null);
        }
        return new CacheInspection(List.copyOf(devices), setProblems, parts, outcome);
    }

    /** What block 0 of a device holds: a superblock, or its state and why there is none usable. */
    private static final class Block0 {
        private final SuperblockState state;
        private final Superblock superblock;
        private final String problem;

        private Block0(SuperblockState state, Superblock superblock, String problem) {
            this.state = state;
            this.superblock = superblock;
            this.problem = problem;
        }

        public SuperblockState state() {
            return state;
        }

        public Superblock superblock() {
            return superblock;
        }

        public String problem() {
            return problem;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Block0)) {
                return false;
            }
            Block0 other = (Block0) o;
            return Objects.equals(state, other.state)
                    && Objects.equals(superblock, other.superblock)
                    && Objects.equals(problem, other.problem);
        }

        @Override
        public int hashCode() {
            return Objects.hash(state, superblock, problem);
        }

        @Override
        public String toString() {
            return "Block0[state=" + state + ", superblock=" + superblock + ", problem=" + problem + "]";
        }
    }

    private static Block0 block0(StorageDriver driver) {
        try {
            ByteBuffer block = readSuperblock(driver);
            if (DeviceContent.isBlank(block)) {
                // Said as such: the decoder's "no FlashChunk superblock (magic 0x0)" tells an operator less.
                return new Block0(SuperblockState.BLANK, null, driver.path()
                        + ": blank superblock (all zeros): the device was never formatted as a cache");
            }
            return new Block0(SuperblockState.VALID, Superblock.decode(block, driver.path()), null);
        } catch (CheckpointFormatException | IOException e) {
            return new Block0(SuperblockState.INVALID, null, e.getMessage());
        }
    }

    /**
     * Start's own rule ({@link DeviceSet}), with the segment size of the run it keeps:
     * why each device whose superblock checks would be formatted, not recovered.
     */
    private static List<String> setProblems(List<StorageDriver> drivers, List<Superblock> superblocks) {
        Superblock first = superblocks.stream().filter(s -> s != null).findFirst().orElse(null);
        if (first == null) {
            return List.of();
        }
        List<String> paths = drivers.stream().map(StorageDriver::path).collect(Collectors.toList());
        List<Long> capacities = drivers.stream().map(StorageDriver::capacityBlocks).collect(Collectors.toList());
        List<String> none = new ArrayList<>(java.util.Collections.nCopies(drivers.size(), null));
        DeviceSet set = DeviceSet.decide(paths, capacities, superblocks, none, 0);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < drivers.size(); i++) {
            if (superblocks.get(i) != null && !set.keeps(i)) {
                problems.add(set.reason(i));
            }
        }
        return List.copyOf(problems);
    }

    /** The index size the newest valid headers name (one index serves every space); any will do when none is valid. */
    private static long buckets(List<Device> devices) {
        CheckpointHeader newest = null;
        for (Device device : devices) {
            for (Recovery.AreaHeader area : device.areas()) {
                if (area.header() != null && (newest == null || area.header().sequence() > newest.sequence())) {
                    newest = area.header();
                }
            }
        }
        return newest == null ? 2 : newest.buckets();
    }

    /** Why an index of {@code buckets} cannot be built here (outside what an index can be, or more than this JVM's heap), or null. */
    private static String indexTooLarge(long buckets) {
        if (buckets < 2 || buckets > 1L << 32) {
            return "the newest checkpoint names an index of " + buckets + " buckets, outside 2.." + (1L << 32);
        }
        long bytes = buckets * ChunkIndex.BUCKET_SLOTS * Long.BYTES;
        long heap = Runtime.getRuntime().maxMemory();
        if (bytes > heap / 10 * 8) {
            return "recovering this cache takes an index of " + (bytes >> 20) + " MiB, more than this JVM's heap of "
                    + (heap >> 20) + " MiB allows; run the tool with a larger -Xmx (java -Xmx" + ((bytes * 3 / 2 >> 30) + 1)
                    + "g -jar ...)";
        }
        return null;
    }

    /** Block 0 of the device, read within {@link #READ_TIMEOUT_NANOS}. */
    public static ByteBuffer readSuperblock(StorageDriver driver) throws IOException {
        ByteBuffer block = AlignedBuffers.allocate(BlockDevice.BLOCK_SIZE);
        driver.await(driver.read(0, block), "superblock read");
        return block;
    }

    public List<Device> devices() {
        return devices;
    }

    /** Why the devices do not form one cache in the order given (start would format or, strict, refuse). */
    public List<String> setProblems() {
        return setProblems;
    }

    /** Whether recovery ran: every superblock valid and the devices one cache. */
    public boolean recovered() {
        return outcome != null;
    }

    /** The instance all valid superblocks name, or null when they disagree or none is valid. */
    public UUID instance() {
        UUID common = null;
        for (Device device : devices) {
            if (device.superblock() != null) {
                if (common != null && !common.equals(device.superblock().instance())) {
                    return null;
                }
                common = device.superblock().instance();
            }
        }
        return common;
    }

    /** What recovery restored; null when it did not run. */
    public Recovery.Outcome outcome() {
        return outcome;
    }

    /** The area recovery loaded for device {@code i} (0 = A, 1 = B), or -1 (as recovery reports it). */
    public int areaRecovered(int i) {
        return outcome == null ? -1 : outcome.loadedAreas()[i];
    }

    /** The position of the delta recovery loaded for device {@code i} after its area's full checkpoint, 0 for none. */
    public int deltaRecovered(int i) {
        return outcome == null ? 0 : outcome.loadedDeltas()[i];
    }

    /**
     * Changed segments a loaded delta names whose summary does not check (their chunks are not
     * restored): notes, not problems, as a summary rewritten while a crash cut it leaves one.
     */
    public List<String> summaryNotes() {
        return outcome == null ? List.of() : outcome.problems().stream()
                .filter(p -> p.kind() == RecoveryProblem.Kind.SEGMENT_SUMMARY).map(RecoveryProblem::message)
                .collect(Collectors.toUnmodifiableList());
    }

    /** Recovery's reasons for not using this area (its header's, or its body's), or an empty list. */
    public List<String> areaProblems(int device, int area) {
        List<String> problems = new ArrayList<>();
        String header = devices.get(device).areas().isEmpty() ? null : devices.get(device).areas().get(area).problem();
        if (header != null) {
            problems.add(header);
        }
        if (outcome != null) {
            for (RecoveryProblem problem : outcome.problems()) {
                // the header's own problem is already in, from the area's header as read
                if (problem.isAbout(device, area) && problem.kind() != RecoveryProblem.Kind.AREA_HEADER
                        && problem.kind() != RecoveryProblem.Kind.SEGMENT_SUMMARY) {
                    problems.add(problem.message());
                }
            }
        }
        return problems;
    }

    /** Segments recovery made durable again in space {@code space}. */
    public int durableSegments(int space) {
        int count = 0;
        for (int i = 0; parts != null && i < parts.table.segmentsIn(space); i++) {
            SegmentTable table = parts.table;
            if (table.state(table.segment(space, i)) == SegmentState.DURABLE) {
                count++;
            }
        }
        return count;
    }

    /**
     * A segment whose entries cannot be named: its summary could not be read (a device error) or did
     * not check. The second a power cut can leave in a segment a checkpoint named while it was open
     * (its summary is written again as it fills); the engine then drops the segment's entries by a
     * scan of the index when it reclaims it, and every record is still checked when it is read.
     */
    public static final class Unlisted {
        private final String message;
        private final boolean deviceError;

        public Unlisted(String message, boolean deviceError) {
            this.message = message;
            this.deviceError = deviceError;
        }

        public String message() {
            return message;
        }

        public boolean deviceError() {
            return deviceError;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Unlisted)) {
                return false;
            }
            Unlisted other = (Unlisted) o;
            return Objects.equals(message, other.message)
                    && deviceError == other.deviceError;
        }

        @Override
        public int hashCode() {
            return Objects.hash(message, deviceError);
        }

        @Override
        public String toString() {
            return "Unlisted[message=" + message + ", deviceError=" + deviceError + "]";
        }
    }

    /**
     * Gives every restored entry, segment by segment (each segment's summary read once), and returns
     * the segments whose entries could not be named, one each.
     */
    public List<Unlisted> forEachEntry(EntryVisitor visitor) {
        List<Unlisted> unreadable = new ArrayList<>();
        if (outcome == null) {
            return unreadable;
        }
        SegmentTable table = parts.table;
        ChunkIndex index = parts.index;
        for (int segment = 0; segment < table.segments(); segment++) {
            if (table.state(segment) != SegmentState.DURABLE) {
                continue;
            }
            int space = table.space(segment);
            int inSpace = table.index(segment);
            AddressSpace where = parts.spaces.get(space);
            SegmentSummary summary;
            try {
                summary = where.readSummary(inSpace, table.sequence(segment));
            } catch (IOException e) {
                unreadable.add(new Unlisted(where.driver().path() + " segment " + inSpace + ": " + e.getMessage(), true));
                continue;
            } catch (RecordMismatchException e) {
                unreadable.add(new Unlisted(where.driver().path() + " segment " + inSpace + ": its summary does not "
                        + "check (" + e.getMessage() + ")", false));
                continue;
            }
            for (int r = 0; r < summary.count(); r++) {
                long key = summary.keys()[r];
                // Only what the index still points at is cached: an invalidated or replaced record is not.
                if (index.find(key) == where.layout().address(space, inSpace, summary.sectors()[r])) {
                    visitor.entry(new Entry(space, where.driver().path(), inSpace, summary.sectors()[r],
                            where.layout().sectorBytes(), key, summary.lengths()[r],
                            outcome.files().get(ChunkKeys.fileId(key))));
                }
            }
        }
        return unreadable;
    }

    /** Entries recovery restored into the index. */
    public long restoredEntries() {
        return outcome == null ? 0 : outcome.restoredEntries();
    }

    /** What reading an entry's record back as a hit would find. */
    public enum RecordState {
        /** The record checks (key, segment use, CRC32C); {@link RecordCheck#length} bytes. */
        READ,
        /** Nothing where the index points. */
        ABSENT,
        /** Flash holds another record or damaged bytes there: never served. */
        MISMATCH,
        /** The device failed or did not answer in time. */
        UNREADABLE
    }

    /**
     * One record read back: its state, its payload's length when read (as the record holds it, so
     * a compressed chunk's compressed bytes: what the segment's summary says), and what went wrong
     * otherwise.
     */
    public static final class RecordCheck {
        private final RecordState state;
        private final int length;
        private final String message;

        public RecordCheck(RecordState state, int length, String message) {
            this.state = state;
            this.length = length;
            this.message = message;
        }

        public RecordState state() {
            return state;
        }

        public int length() {
            return length;
        }

        public String message() {
            return message;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof RecordCheck)) {
                return false;
            }
            RecordCheck other = (RecordCheck) o;
            return Objects.equals(state, other.state)
                    && length == other.length
                    && Objects.equals(message, other.message);
        }

        @Override
        public int hashCode() {
            return Objects.hash(state, length, message);
        }

        @Override
        public String toString() {
            return "RecordCheck[state=" + state + ", length=" + length + ", message=" + message + "]";
        }
    }

    /**
     * Reads {@code entry}'s record back and checks it as a hit does (key, segment use, CRC32C), in the
     * caller's thread.
     *
     * @throws IllegalStateException when recovery did not run (no entries to check)
     */
    public RecordCheck check(Entry entry) {
        if (parts == null) {
            throw new IllegalStateException("recovery did not run: no records to check");
        }
        try {
            // The summary gives the record's payload, not its file's chunk length: any chunk length will do,
            // and the record is read whole, as long as it is (a compressed chunk is longer than its payload).
            SegmentReader.Hit hit = parts.reader.read(entry.key(), RecordFormat.MAX_CHUNK_BYTES, SegmentReader.NO_NEXT,
                    RecordFormat.HEADER_BYTES + entry.length());
            if (hit == null) {
                return new RecordCheck(RecordState.ABSENT, 0, "not found where the index points");
            }
            int length = hit.recordBytes() - RecordFormat.HEADER_BYTES; // decompressed whole, if compressed
            hit.release();
            return new RecordCheck(RecordState.READ, length, null);
        } catch (RecordMismatchException e) {
            return new RecordCheck(RecordState.MISMATCH, 0, e.getMessage());
        } catch (IOException e) {
            return new RecordCheck(RecordState.UNREADABLE, 0, e.getMessage());
        }
    }
}
