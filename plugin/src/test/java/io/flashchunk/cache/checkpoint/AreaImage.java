package io.flashchunk.cache.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Builds checkpoint areas byte by byte, independently of the writer, so tests can make valid ones,
 * subtly wrong ones with correct checksums, and mutated ones.
 */
final class AreaImage {
    record File(int id, String path, long size, long modified, long inode, long birthNanos, long generation) {
    }

    record Entry(int fileId, int chunkIndex, long location, int crc) {
    }

    UUID instance = UUID.randomUUID();
    int space;
    long sequence = 1;
    int nextFileId = 100;
    final List<File> files = new ArrayList<>();
    final List<Entry> entries = new ArrayList<>();

    byte[] fileTable() {
        ByteBuffer table = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        for (File file : files) {
            byte[] path = file.path().getBytes(StandardCharsets.UTF_8);
            table.putInt(file.id()).putLong(file.size()).putLong(file.modified()).putLong(file.inode())
                    .putLong(file.birthNanos()).putLong(file.generation()).putShort((short) path.length).put(path);
        }
        byte[] bytes = new byte[table.position()];
        table.flip().get(bytes);
        return bytes;
    }

    byte[] entriesBytes() {
        ByteBuffer buffer = ByteBuffer.allocate(entries.size() * 20).order(ByteOrder.LITTLE_ENDIAN);
        for (Entry entry : entries) {
            buffer.putInt(entry.fileId()).putInt(entry.chunkIndex()).putLong(entry.location()).putInt(entry.crc());
        }
        return buffer.array();
    }

    /** Header block then body, checksums computed over what is there. */
    byte[] encode() {
        byte[] table = fileTable();
        byte[] body = entriesBytes();
        CheckpointHeader header = new CheckpointHeader(instance, space, sequence, 1_700_000_000_000L, nextFileId,
                entries.size(), files.size(), table.length, crc(body), crc(table));
        ByteBuffer encodedHeader = header.encode();
        ByteBuffer area = ByteBuffer.allocate(4096 + table.length + body.length);
        area.put(encodedHeader.duplicate().limit(4096)).put(table).put(body);
        return area.array();
    }

    static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    /** Writes area bytes at the start of area {@code area} of the device file. */
    static void write(Path device, SpaceLayout layout, int area, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), layout.areaStart(area) * 4096);
        }
    }

    /** Recomputes the header's checksums for whatever the area bytes now hold (mutations past the CRC gate). */
    static void resealChecksums(byte[] area) {
        ByteBuffer b = ByteBuffer.wrap(area).order(ByteOrder.LITTLE_ENDIAN);
        long tableBytes = b.getLong(56);
        long entryCount = b.getLong(64);
        if (tableBytes >= 0 && entryCount >= 0 && tableBytes <= area.length && entryCount <= area.length / 20
                && 4096 + tableBytes + entryCount * 20 <= area.length) {
            CRC32C table = new CRC32C();
            table.update(area, 4096, (int) tableBytes);
            CRC32C entries = new CRC32C();
            entries.update(area, 4096 + (int) tableBytes, (int) (entryCount * 20));
            b.putInt(72, (int) table.getValue());
            b.putInt(76, (int) entries.getValue());
        }
        CRC32C header = new CRC32C();
        header.update(area, 0, 80);
        b.putInt(80, (int) header.getValue());
    }
}
