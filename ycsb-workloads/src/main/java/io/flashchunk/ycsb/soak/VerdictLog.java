package io.flashchunk.ycsb.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.flashchunk.ycsb.soak.KeyVersions.Verdict;
import io.flashchunk.ycsb.soak.RecentAcknowledgements.Write;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Every read that was not {@link Verdict#OK}, one JSON line each, appended to a file for the soak's
 * analysis. Each line is flushed, so the lines of a client that dies are kept.
 */
public final class VerdictLog implements Closeable {
    /**
     * One judged read: when the client judged it, the key, the version read (0: no row, -1: no
     * version), the acknowledged and sent versions before the read, and the acknowledged writes it
     * lost as {@code [version, acknowledged at millis]} pairs (empty when this client knows no times).
     */
    public record Entry(long at, String key, Verdict verdict, long read, long acknowledged, long sent,
            List<long[]> lostWrites) {
    }

    private static final ObjectWriter JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).writerFor(Entry.class);

    private final BufferedWriter out;

    public VerdictLog(Path file) throws IOException {
        out = Files.newBufferedWriter(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    public synchronized void record(long atMillis, String key, Verdict verdict, long read, long acknowledged,
            long sent, List<Write> lost) {
        List<long[]> writes = lost.stream().map(w -> new long[] {w.version(), w.acknowledgedAtMillis()}).toList();
        try {
            out.write(JSON.writeValueAsString(new Entry(atMillis, key, verdict, read, acknowledged, sent, writes)));
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the verdict log", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
