package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

/**
 * Reads and checks what is on a cache device: its superblock and the checkpoint in either area.
 * Nothing is trusted until checked: checksums of header and body, lengths against the area, every
 * file record, every entry's file, space, range, alignment, and that no two entries share a block.
 * Any violation rejects the whole checkpoint with a message naming the device, the area and what
 * is wrong.
 */
public final class CheckpointReader {
    private static final int READ_CHUNK = 4 << 20;
    /** The longest wait for one read where the caller names none (inspection tools). */
    public static final long DEFAULT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private CheckpointReader() {
    }

    public static Superblock readSuperblock(BlockDevice device) throws CheckpointFormatException {
        return Superblock.decode(readBlocks(device, 0, 1, DEFAULT_TIMEOUT_NANOS), device.path());
    }

    public static String areaName(BlockDevice device, int area) {
        return device.path() + " checkpoint area " + (area == 0 ? "A" : "B");
    }

    /** Reads only the header of an area. */
    public static CheckpointHeader readHeader(BlockDevice device, SpaceLayout layout, int area)
            throws CheckpointFormatException {
        return readHeader(device, layout, area, DEFAULT_TIMEOUT_NANOS);
    }

    /** Reads only the header of an area, waiting at most {@code timeoutNanos} for the device. */
    public static CheckpointHeader readHeader(BlockDevice device, SpaceLayout layout, int area, long timeoutNanos)
            throws CheckpointFormatException {
        return CheckpointHeader.decode(readBlocks(device, layout.areaStart(area), 1, timeoutNanos),
                areaName(device, area));
    }

    /**
     * Reads and checks the checkpoint in {@code area}. {@code progress} receives body bytes as they
     * are read (for progress bars); may be null.
     */
    public static CheckpointImage read(BlockDevice device, SpaceLayout layout, int area, UUID instance, int spaceIndex,
                                       LongConsumer progress) throws CheckpointFormatException {
        return read(device, layout, area, instance, spaceIndex, progress, DEFAULT_TIMEOUT_NANOS);
    }

    /** As {@link #read(BlockDevice, SpaceLayout, int, UUID, int, LongConsumer)}, each read waited for at most {@code timeoutNanos}. */
    public static CheckpointImage read(BlockDevice device, SpaceLayout layout, int area, UUID instance, int spaceIndex,
                                       LongConsumer progress, long timeoutNanos) throws CheckpointFormatException {
        String where = areaName(device, area);
        CheckpointHeader header = readHeader(device, layout, area, timeoutNanos);
        if (!header.instance().equals(instance)) {
            throw new CheckpointFormatException(where + ": belongs to cache instance " + header.instance() + ", not "
                    + instance);
        }
        if (header.spaceIndex() != spaceIndex) {
            throw new CheckpointFormatException(where + ": written for address space " + header.spaceIndex()
                    + ", this is space " + spaceIndex);
        }
        long capacity = (layout.areaBlocks() - 1) * SpaceLayout.BLOCK_SIZE;
        // Each part bounded first, so their sum cannot overflow.
        if (header.fileTableBytes() > capacity || header.entryCount() > capacity / CheckpointFormat.ENTRY_BYTES
                || header.bodyBytes() > capacity) {
            throw new CheckpointFormatException(where + ": body of " + header.entryCount() + " entries and "
                    + header.fileTableBytes() + " file-table bytes does not fit the area (" + capacity + " bytes)");
        }
        if (header.bodyBytes() > Integer.MAX_VALUE - SpaceLayout.BLOCK_SIZE) {
            throw new CheckpointFormatException(where + ": body of " + header.bodyBytes() + " bytes is too large to load");
        }
        ByteBuffer body = readBody(device, layout.areaStart(area) + 1, (int) header.bodyBytes(), progress, timeoutNanos)
                .order(ByteOrder.LITTLE_ENDIAN);
        // The body: the file table, then the entries.
        int tableBytes = (int) header.fileTableBytes();
        if (CheckpointFormat.crc(body, 0, tableBytes) != header.fileTableCrc()) {
            throw new CheckpointFormatException(where + ": file table checksum mismatch (torn or corrupt checkpoint)");
        }
        if (CheckpointFormat.crc(body, tableBytes, (int) header.bodyBytes()) != header.entriesCrc()) {
            throw new CheckpointFormatException(where + ": entries checksum mismatch (torn or corrupt checkpoint)");
        }
        Map<Integer, FileIdentity> files = parseFiles(body.duplicate().position(0).limit(tableBytes).slice()
                .order(ByteOrder.LITTLE_ENDIAN), header.fileCount(), header.nextFileId(), where);
        CheckpointImage image = new CheckpointImage(header, files,
                body.duplicate().position(tableBytes).limit((int) header.bodyBytes()).slice());
        checkEntries(image, layout, spaceIndex, where);
        return image;
    }

    private static Map<Integer, FileIdentity> parseFiles(ByteBuffer table, int count, int nextFileId, String where)
            throws CheckpointFormatException {
        Map<Integer, FileIdentity> files = new HashMap<>();
        for (int i = 0; i < count; i++) {
            if (table.remaining() < CheckpointFormat.FILE_RECORD_FIXED_BYTES) {
                throw new CheckpointFormatException(where + ": file table ends inside record " + i + " of " + count);
            }
            int id = table.getInt();
            long size = table.getLong();
            long modified = table.getLong();
            long inode = table.getLong();
            long birthNanos = table.getLong();
            long generation = table.getLong();
            int pathBytes = Short.toUnsignedInt(table.getShort());
            if (id <= 0 || id >= nextFileId) {
                throw new CheckpointFormatException(where + ": file record " + i + " has id " + id
                        + " outside 1.." + (nextFileId - 1));
            }
            if (pathBytes == 0 || pathBytes > CheckpointFormat.MAX_PATH_BYTES || pathBytes > table.remaining()) {
                throw new CheckpointFormatException(where + ": file record " + i + " has a path of " + pathBytes
                        + " bytes with " + table.remaining() + " left in the table");
            }
            if (size < 0) {
                throw new CheckpointFormatException(where + ": file record " + i + " has size " + size);
            }
            byte[] path = new byte[pathBytes];
            table.get(path);
            if (files.put(id, new FileIdentity(new String(path, StandardCharsets.UTF_8), size, modified, inode,
                    birthNanos, generation)) != null) {
                throw new CheckpointFormatException(where + ": file id " + id + " appears twice in the file table");
            }
        }
        if (table.hasRemaining()) {
            throw new CheckpointFormatException(where + ": " + table.remaining() + " bytes follow the last file record");
        }
        return files;
    }

    private static void checkEntries(CheckpointImage image, SpaceLayout layout, int spaceIndex, String where)
            throws CheckpointFormatException {
        long dataEnd = layout.dataStart() + layout.dataBlocks();
        if (layout.dataBlocks() > Integer.MAX_VALUE) {
            throw new CheckpointFormatException(where + ": data area of " + layout.dataBlocks() + " blocks is too large");
        }
        BitSet used = new BitSet((int) layout.dataBlocks());
        BitSet fileIds = new BitSet();
        image.files().keySet().forEach(fileIds::set);
        for (int i = 0; i < image.entryCount(); i++) {
            long location = image.location(i);
            if (image.fileId(i) <= 0 || !fileIds.get(image.fileId(i))) {
                throw new CheckpointFormatException(where + ": entry " + i + " names file id " + image.fileId(i)
                        + ", which is not in the file table");
            }
            if (!ChunkLocation.isOnFlash(location) || ChunkLocation.space(location) != spaceIndex) {
                throw new CheckpointFormatException(where + ": entry " + i + " has location "
                        + ChunkLocation.describe(location) + ", not a place in space " + spaceIndex);
            }
            long lba = ChunkLocation.lba(location);
            int order = ChunkLocation.order(ChunkLocation.length(location));
            long blocks = 1L << order;
            long offset = lba - layout.dataStart();
            if (lba < layout.dataStart() || lba + blocks > dataEnd || (offset & (blocks - 1)) != 0) {
                throw new CheckpointFormatException(where + ": entry " + i + " points at blocks " + lba + ".."
                        + (lba + blocks - 1) + ", outside the data area " + layout.dataStart() + ".." + (dataEnd - 1)
                        + " or not aligned to its size");
            }
            int from = (int) offset;
            int to = (int) (offset + blocks);
            if (used.nextSetBit(from) >= 0 && used.nextSetBit(from) < to) {
                throw new CheckpointFormatException(where + ": entry " + i + " overlaps another entry at block "
                        + (layout.dataStart() + used.nextSetBit(from)));
            }
            used.set(from, to);
        }
        image.usedBlocks(used);
    }

    /** Reads blocks into a new buffer, waiting at most {@code timeoutNanos}. */
    static ByteBuffer readBlocks(BlockDevice device, long lba, int blocks, long timeoutNanos)
            throws CheckpointFormatException {
        ByteBuffer buffer = AlignedBuffers.allocate(blocks * SpaceLayout.BLOCK_SIZE);
        try {
            await(device.read(lba, buffer), timeoutNanos);
        } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
            throw new CheckpointFormatException(device.path() + ": cannot read blocks " + lba + ".."
                    + (lba + blocks - 1) + ": " + reason(e, timeoutNanos));
        }
        return buffer;
    }

    /** Waits for a read; a timed-out read keeps its buffer (the device holds it until the read ends). */
    private static void await(CompletableFuture<Void> read, long timeoutNanos)
            throws ExecutionException, TimeoutException, CheckpointFormatException {
        try {
            read.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckpointFormatException("interrupted while reading a checkpoint");
        }
    }

    private static String reason(Exception e, long timeoutNanos) {
        if (e instanceof TimeoutException) {
            return "no answer in " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (the device may be hung)";
        }
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return cause.getMessage();
    }

    /** Reads the body in pieces of 4 MiB, all submitted at once (the device caps how many are in flight). */
    private static ByteBuffer readBody(BlockDevice device, long firstBlock, int bytes, LongConsumer progress,
                                       long timeoutNanos) throws CheckpointFormatException {
        int rounded = (bytes + SpaceLayout.BLOCK_SIZE - 1) & -SpaceLayout.BLOCK_SIZE;
        ByteBuffer body = AlignedBuffers.allocate(Math.max(rounded, SpaceLayout.BLOCK_SIZE));
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        try {
            for (int done = 0; done < rounded; done += READ_CHUNK) {
                int length = Math.min(READ_CHUNK, rounded - done);
                reads.add(device.read(firstBlock + done / SpaceLayout.BLOCK_SIZE,
                        body.duplicate().position(done).limit(done + length)));
            }
            for (int i = 0; i < reads.size(); i++) {
                await(reads.get(i), timeoutNanos);
                if (progress != null) {
                    progress.accept(Math.min(READ_CHUNK, rounded - (long) i * READ_CHUNK));
                }
            }
        } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
            // The buffer is not handed out: reads still running write into it and nothing else, and it
            // stays reachable (through their requests) until they end.
            throw new CheckpointFormatException(device.path() + ": cannot read checkpoint body: "
                    + reason(e, timeoutNanos));
        }
        return body.limit(bytes);
    }
}
