package io.flashchunk.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.apache.cassandra.io.compress.BufferType;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.io.util.ChunkReader;
import org.apache.cassandra.io.util.Rebufferer;

/**
 * A Cassandra {@link ChunkReader} of a real file opened with a given length, reading as Cassandra's
 * reader of an uncompressed data file does: a whole chunk of the file as it is on disk now (up to the
 * buffer's capacity or the end of the file), so past the length it was opened with when the file has
 * grown since (a file opened early while still written). Its I/O needs no direct memory (no NIO
 * channel and its temporary direct buffers), so a test can limit direct memory to the cache's own.
 * Thread-safe. It serves the adapter's reads only: no channel, no rebufferer of its own.
 */
public final class FileChunkReader implements ChunkReader {
    private final Path path;
    private final long fileLength;
    private final int chunkSize;
    private final BufferType bufferType;
    private final RandomAccessFile file;

    public FileChunkReader(Path path, long fileLength, int chunkSize, BufferType bufferType) throws IOException {
        this.path = path;
        this.fileLength = fileLength;
        this.chunkSize = chunkSize;
        this.bufferType = bufferType;
        this.file = new RandomAccessFile(path.toFile(), "r");
    }

    public Path path() {
        return path;
    }

    @Override
    public void readChunk(long position, ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.capacity()];
        int read = 0;
        try {
            synchronized (file) {
                file.seek(position);
                for (int n; read < bytes.length && (n = file.read(bytes, read, bytes.length - read)) > 0; ) {
                    read += n;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + path + " at " + position, e);
        }
        buffer.clear();
        buffer.put(bytes, 0, read).flip();
    }

    @Override
    public int chunkSize() {
        return chunkSize;
    }

    @Override
    public BufferType preferredBufferType() {
        return bufferType;
    }

    @Override
    public long fileLength() {
        return fileLength;
    }

    @Override
    public double getCrcCheckChance() {
        return 0;
    }

    @Override
    public ChannelProxy channel() {
        throw new UnsupportedOperationException("the adapter's reads never ask for the channel");
    }

    @Override
    public Rebufferer instantiateRebufferer(boolean isScan) {
        throw new UnsupportedOperationException("the adapter wraps this reader");
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "FileChunkReader:" + path + " (" + fileLength + " bytes)";
    }
}
