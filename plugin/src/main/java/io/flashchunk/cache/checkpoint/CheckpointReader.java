package io.flashchunk.cache.checkpoint;

import io.flashchunk.buffer.AlignedBuffers;
import io.flashchunk.cache.index.ChunkLocation;
import io.flashchunk.cache.index.FileIdentity;
import io.flashchunk.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * Reads and checks what is on a cache device: its superblock and the checkpoint in either area.
 * Nothing is trusted until checked: checksums of header and body, lengths against the area, every
 * file record, every entry's file, space, range, alignment, and that no two entries share a block.
 * Any violation rejects the whole checkpoint with a message naming the device, the area and what
 * is wrong.
 */
public final class CheckpointReader {
    /** The body is read in pieces of this size, a few in flight: its size is bounded only by the area. */
    private static final int PIECE_BYTES = 4 << 20;
    /** The file table is parsed from one array, so it is at most this long (the entries have no such bound). */
    private static final long MAX_FILE_TABLE_BYTES = Integer.MAX_VALUE - 8;
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
        return read(device, layout, area, instance, spaceIndex, progress, timeoutNanos, PIECE_BYTES,
                EntrySegments.DEFAULT_SEGMENT_ENTRIES);
    }

    /** As above, the body read in pieces of {@code pieceBytes} and kept in segments of {@code segmentEntries} (tests). */
    static CheckpointImage read(BlockDevice device, SpaceLayout layout, int area, UUID instance, int spaceIndex,
                                LongConsumer progress, long timeoutNanos, int pieceBytes, int segmentEntries)
            throws CheckpointFormatException {
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
        if (header.fileTableBytes() > MAX_FILE_TABLE_BYTES || header.entryCount() > Integer.MAX_VALUE) {
            throw new CheckpointFormatException(where + ": a file table of " + header.fileTableBytes() + " bytes or "
                    + header.entryCount() + " entries is more than one space holds");
        }
        int tableBytes = (int) header.fileTableBytes();
        EntrySegments entries = new EntrySegments(header.entryCount(), segmentEntries);
        byte[] table = new byte[tableBytes];
        readBody(device, layout.areaStart(area) + 1, header, table, entries, progress, timeoutNanos, pieceBytes, where);
        Map<Integer, FileIdentity> files = FileTableCodec.decode(ByteBuffer.wrap(table), header.fileCount(),
                header.nextFileId(), where);
        CheckpointImage image = new CheckpointImage(header, files, entries);
        checkEntries(image, layout, spaceIndex, where);
        return image;
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
            BodyReader.await(device.read(lba, buffer), timeoutNanos);
        } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
            throw new CheckpointFormatException(device.path() + ": cannot read blocks " + lba + ".."
                    + (lba + blocks - 1) + ": " + BodyReader.reason(e, timeoutNanos));
        }
        return buffer;
    }

    /**
     * Streams the body: the file table's bytes into {@code table}, the entries' into {@code entries},
     * each part's checksum computed on the way and checked at the end.
     */
    private static void readBody(BlockDevice device, long firstBlock, CheckpointHeader header, byte[] table,
                                 EntrySegments entries, LongConsumer progress, long timeoutNanos, int pieceBytes,
                                 String where) throws CheckpointFormatException {
        CRC32C tableCrc = new CRC32C();
        CRC32C entriesCrc = new CRC32C();
        BodyReader.read(device, firstBlock, header.bodyBytes(), pieceBytes, timeoutNanos, (piece, offset) -> {
            long end = offset + piece.limit();
            long tableEnd = Math.min(end, table.length);
            if (offset < tableEnd) {
                ByteBuffer part = piece.duplicate().limit((int) (tableEnd - offset));
                tableCrc.update(part.duplicate());
                part.get(table, (int) offset, part.remaining());
            }
            long entriesFrom = Math.max(offset, table.length);
            if (entriesFrom < end) {
                ByteBuffer part = piece.duplicate().position((int) (entriesFrom - offset));
                entriesCrc.update(part.duplicate());
                entries.append(part);
            }
            if (progress != null) {
                progress.accept(piece.limit());
            }
        });
        if ((int) tableCrc.getValue() != header.fileTableCrc()) {
            throw new CheckpointFormatException(where + ": file table checksum mismatch (torn or corrupt checkpoint)");
        }
        if ((int) entriesCrc.getValue() != header.entriesCrc()) {
            throw new CheckpointFormatException(where + ": entries checksum mismatch (torn or corrupt checkpoint)");
        }
    }
}
