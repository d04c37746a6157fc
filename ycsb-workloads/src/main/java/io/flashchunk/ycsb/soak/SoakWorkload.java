package io.flashchunk.ycsb.soak;

import io.flashchunk.ycsb.soak.KeyVersions.Verdict;
import io.flashchunk.ycsb.soak.RecentAcknowledgements.Write;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/**
 * A YCSB workload for crash soaks: every value is {@link VersionedValue} of its key and a version,
 * every read is judged against what this client sent and had acknowledged ({@link KeyVersions}),
 * and the verdicts are counted as YCSB operation {@code CHECK} with returns {@code OK},
 * {@code LOST_WRITE} and {@code WRONG_VALUE}. Reads that fail are YCSB's own {@code READ} errors.
 *
 * <p>Properties: {@code recordcount}, {@code table}, {@code fieldlength} (default 1000),
 * {@code soak.readproportion} (default 0.7; the rest are updates), {@code soak.state} (a file the
 * versions are read from at start, if it exists, and written to at the end, so a load, a soak and a
 * final check are one history; the {@link RecentAcknowledgements} go beside it, in
 * {@code <soak.state>.acknowledgements}), {@code soak.verifyall} (true: each thread reads its keys once, in
 * order, and writes nothing; run it with {@code operationcount} equal to {@code recordcount}),
 * {@code soak.verdictlog} (a file every read not judged OK is appended to, as a {@link VerdictLog}
 * line with the times the writes it lost were acknowledged), {@code soak.stopfile} (a path: once a
 * file exists there, the threads end their runs, so a script ends a run of unknown length cleanly,
 * its state saved).
 *
 * <p>Key {@code i} belongs to client thread {@code i % threads}, so writes of one key never race.
 */
public class SoakWorkload extends Workload {
    public static final String FIELD = "field0";
    public static final String CHECK = "CHECK";
    public static final Status LOST_WRITE = new Status("LOST_WRITE", "an acknowledged write came back older");
    public static final Status WRONG_VALUE = new Status("WRONG_VALUE", "a value no write of this key sent");
    private static final Logger LOG = LoggerFactory.getLogger(SoakWorkload.class);
    private static final int LOGGED_VERDICTS = 20;

    private final AtomicInteger nextInsert = new AtomicInteger();
    private final AtomicLong loggedVerdicts = new AtomicLong();
    private final Map<Verdict, LongAdder> verdicts = new EnumMap<>(Verdict.class);
    private final LongSupplier clock;
    private KeyVersions versions;
    private RecentAcknowledgements recent;
    private VerdictLog verdictLog;
    private Path stateFile;
    private String table;
    private int fieldLength;
    private double readProportion;
    private boolean verifyAll;
    private Path stopFile;
    /** When the stop file was last looked for (ms), so a busy client does not stat it at every operation. */
    private final AtomicLong stopCheckedAt = new AtomicLong();
    private volatile boolean stopped;

    private static final class ThreadState {
        final int thread;
        final int threads;
        final SplittableRandom random;
        int nextVerified;

        ThreadState(int thread, int threads, long seed) {
            this.thread = thread;
            this.threads = threads;
            this.random = new SplittableRandom(seed);
        }
    }

    public SoakWorkload() {
        this(System::currentTimeMillis);
    }

    /** A workload whose acknowledgement and verdict times come from {@code clock} (milliseconds). */
    SoakWorkload(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public void init(Properties p) throws WorkloadException {
        for (Verdict verdict : Verdict.values()) {
            verdicts.put(verdict, new LongAdder());
        }
        int records = positive(p, "recordcount", "1000");
        table = p.getProperty("table", "usertable");
        fieldLength = positive(p, "fieldlength", "1000");
        verifyAll = Boolean.parseBoolean(p.getProperty("soak.verifyall", "false"));
        try {
            readProportion = Double.parseDouble(p.getProperty("soak.readproportion", "0.7"));
        } catch (NumberFormatException e) {
            readProportion = -1;
        }
        if (!(readProportion >= 0 && readProportion <= 1)) {
            throw new WorkloadException("soak.readproportion must be a number from 0 to 1, got '"
                    + p.getProperty("soak.readproportion") + "'");
        }
        String stop = p.getProperty("soak.stopfile");
        stopFile = stop == null ? null : Path.of(stop);
        String state = p.getProperty("soak.state");
        stateFile = state == null ? null : Path.of(state);
        try {
            versions = stateFile != null && Files.exists(stateFile) ? KeyVersions.load(stateFile, records)
                    : new KeyVersions(records);
        } catch (IOException e) {
            throw new WorkloadException("cannot read soak.state " + stateFile + ": " + e.getMessage(), e);
        }
        Path acknowledgements = acknowledgementsFile();
        try {
            recent = acknowledgements != null && Files.exists(acknowledgements)
                    ? RecentAcknowledgements.load(acknowledgements, records) : new RecentAcknowledgements(records);
        } catch (IOException e) {
            throw new WorkloadException("cannot read " + acknowledgements + ": " + e.getMessage(), e);
        }
        String log = p.getProperty("soak.verdictlog");
        try {
            verdictLog = log == null ? null : new VerdictLog(Path.of(log));
        } catch (IOException e) {
            throw new WorkloadException("cannot open soak.verdictlog " + log + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Object initThread(Properties p, int thread, int threads) {
        return new ThreadState(thread, threads, p.getProperty("soak.seed", "1").hashCode() * 31L + thread);
    }

    @Override
    public boolean doInsert(DB db, Object threadState) {
        int key = nextInsert.getAndIncrement();
        if (key >= versions.keys()) {
            return false;
        }
        return write(db, key);
    }

    @Override
    public boolean doTransaction(DB db, Object threadState) {
        ThreadState state = (ThreadState) threadState;
        if (stopRequested()) {
            return false;
        }
        if (verifyAll) {
            int key = state.thread + state.threads * state.nextVerified++;
            if (key >= versions.keys()) {
                return false;
            }
            read(db, key);
            return true;
        }
        int owned = (versions.keys() - state.thread + state.threads - 1) / state.threads;
        if (owned <= 0) {
            return false;
        }
        int key = state.thread + state.threads * state.random.nextInt(owned);
        if (state.random.nextDouble() < readProportion) {
            read(db, key);
        } else {
            write(db, key);
        }
        return true;
    }

    @Override
    public void cleanup() throws WorkloadException {
        try {
            if (verdictLog != null) {
                verdictLog.close();
            }
        } catch (IOException e) {
            throw new WorkloadException("cannot close soak.verdictlog: " + e.getMessage(), e);
        }
        if (stateFile == null) {
            return;
        }
        try {
            versions.save(stateFile);
            recent.save(acknowledgementsFile());
        } catch (IOException e) {
            throw new WorkloadException("cannot write soak.state " + stateFile + ": " + e.getMessage(), e);
        }
    }

    /** True once the stop file exists; looked for at most every 100 ms. */
    private boolean stopRequested() {
        if (stopFile == null || stopped) {
            return stopped;
        }
        long now = clock.getAsLong();
        long last = stopCheckedAt.get();
        if (now - last >= 100 && stopCheckedAt.compareAndSet(last, now) && Files.exists(stopFile)) {
            stopped = true;
        }
        return stopped;
    }

    private Path acknowledgementsFile() {
        return stateFile == null ? null : stateFile.resolveSibling(stateFile.getFileName() + ".acknowledgements");
    }

    /** The reads this client judged {@code verdict} so far. */
    public long verdicts(Verdict verdict) {
        return verdicts.get(verdict).sum();
    }

    /** The key's name in the table. */
    public static String keyName(int key) {
        return "soak" + key;
    }

    private boolean write(DB db, int key) {
        String name = keyName(key);
        long version = versions.nextVersion(key);
        Map<String, ByteIterator> values = new HashMap<>();
        values.put(FIELD, new StringByteIterator(VersionedValue.of(name, version, fieldLength)));
        Status status = versions.acknowledged(key) == 0 ? db.insert(table, name, values) : db.update(table, name, values);
        if (status.isOk()) {
            versions.acknowledged(key, version);
            recent.acknowledged(key, version, clock.getAsLong());
        }
        return status.isOk();
    }

    private void read(DB db, int key) {
        String name = keyName(key);
        Map<String, ByteIterator> result = new HashMap<>();
        Status status = db.read(table, name, null, result);
        long version;
        if (status == Status.NOT_FOUND) {
            version = 0;
        } else if (status.isOk()) {
            ByteIterator value = result.get(FIELD);
            version = value == null ? -1 : VersionedValue.versionIn(name, value.toString(), fieldLength);
        } else {
            return; // a failed read: YCSB counts it under READ
        }
        long acknowledged = versions.acknowledged(key);
        Verdict verdict = versions.judge(key, version);
        verdicts.get(verdict).increment();
        Measurements.getMeasurements().reportStatus(CHECK, statusOf(verdict));
        if (verdict == Verdict.OK) {
            return;
        }
        List<Write> lost = verdict == Verdict.LOST_WRITE ? recent.takeNewerThan(key, version) : List.of();
        if (verdictLog != null) {
            verdictLog.record(clock.getAsLong(), name, verdict, version, acknowledged, versions.sent(key), lost);
        }
        if (loggedVerdicts.incrementAndGet() <= LOGGED_VERDICTS) {
            LOG.error("{}: key {} read version {} (-1: no version of it), acknowledged {}, sent {}", verdict, name,
                    version, acknowledged, versions.sent(key));
        }
    }

    private static Status statusOf(Verdict verdict) {
        return switch (verdict) {
            case OK -> Status.OK;
            case LOST_WRITE -> LOST_WRITE;
            case WRONG_VALUE -> WRONG_VALUE;
        };
    }

    private static int positive(Properties p, String name, String fallback) throws WorkloadException {
        String text = p.getProperty(name, fallback);
        try {
            int value = Integer.parseInt(text.trim());
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new WorkloadException(name + " must be a positive integer, got '" + text + "'");
    }
}
