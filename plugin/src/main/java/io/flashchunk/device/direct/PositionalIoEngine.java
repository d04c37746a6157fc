package io.flashchunk.device.direct;

import com.sun.nio.file.ExtendedOpenOption;
import io.flashchunk.device.DeviceIoException;
import io.flashchunk.device.DeviceOpenException;
import io.flashchunk.device.IoOp;
import io.flashchunk.device.IoRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * The fallback engine where libaio cannot be loaded: positional reads and writes on a FileChannel
 * opened with O_DIRECT, each run by a thread of a small pool. The device's queue-depth cap bounds
 * the pool's queue.
 */
final class PositionalIoEngine implements DirectIoEngine {
    static final int MAX_THREADS = 32;

    private final String path;
    private final FileChannel channel;
    private final ExecutorService pool;
    private BiConsumer<IoRequest, Throwable> completion;

    private PositionalIoEngine(String path, FileChannel channel, int threads) {
        this.path = path;
        this.channel = channel;
        AtomicInteger ids = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                task -> {
                    Thread thread = new Thread(task, "flashchunk-pio-" + ids.incrementAndGet() + " " + path);
                    thread.setDaemon(true);
                    return thread;
                });
    }

    static PositionalIoEngine open(String path, int queueDepth, boolean readOnly) throws DeviceOpenException {
        FileChannel channel;
        try {
            channel = readOnly
                    ? FileChannel.open(Path.of(path), StandardOpenOption.READ, ExtendedOpenOption.DIRECT)
                    : FileChannel.open(Path.of(path), StandardOpenOption.READ, StandardOpenOption.WRITE,
                            ExtendedOpenOption.DIRECT);
        } catch (NoSuchFileException e) {
            throw new DeviceOpenException("device path " + path + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new DeviceOpenException("no permission to open " + path + " for reading and writing", e);
        } catch (FileSystemException e) {
            String reason = String.valueOf(e.getReason());
            if (reason.contains("not permitted") || reason.contains("Permission denied")) {
                throw new DeviceOpenException("no permission to open " + path + " for reading and writing: " + reason, e);
            }
            throw new DeviceOpenException("cannot open " + path + " with O_DIRECT: " + reason, e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new DeviceOpenException("cannot open " + path + " with O_DIRECT: " + e.getMessage(), e);
        }
        return new PositionalIoEngine(path, channel, Math.min(queueDepth, MAX_THREADS));
    }

    @Override
    public void start(BiConsumer<IoRequest, Throwable> sink) {
        this.completion = sink;
    }

    @Override
    public void dispatch(IoRequest[] batch, int count) {
        for (int i = 0; i < count; i++) {
            IoRequest request = batch[i];
            pool.execute(() -> run(request));
        }
    }

    private void run(IoRequest request) {
        // A duplicate, so the caller's position and limit stay as they were.
        ByteBuffer view = request.buffer().duplicate();
        long position = request.deviceOffset();
        Throwable failure = null;
        try {
            while (view.hasRemaining()) {
                int moved = request.op() == IoOp.READ ? channel.read(view, position) : channel.write(view, position);
                if (moved <= 0) {
                    failure = new DeviceIoException(request, path, 0, "short " + request.op().verb() + ": "
                            + (view.position() - request.buffer().position()) + " of " + request.bytes() + " bytes");
                    break;
                }
                position += moved;
            }
        } catch (IOException | RuntimeException e) {
            failure = new DeviceIoException(request, path, 0, e.toString());
        }
        completion.accept(request, failure);
    }

    @Override
    public void flush() throws IOException {
        channel.force(false);
    }

    @Override
    public void close() {
        pool.shutdown();
        try {
            pool.awaitTermination(10, TimeUnit.SECONDS);
            channel.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // Nothing is left to flush: every request completed before close.
        }
    }
}
