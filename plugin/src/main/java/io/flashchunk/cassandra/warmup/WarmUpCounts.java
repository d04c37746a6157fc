package io.flashchunk.cassandra.warmup;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/** What a warm-up's readers did, counted across its threads, and the line that tells it. */
final class WarmUpCounts {
    /** A warm-up whose reads keep failing stops early: past this many failures, and more than it read. */
    static final long FAILURES_BEFORE_GIVING_UP = 100;

    final LongAdder reads = new LongAdder();
    final LongAdder keysFound = new LongAdder();
    final LongAdder notLocal = new LongAdder();
    final LongAdder connections = new LongAdder();
    final LongAdder ownTableReads = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();

    /** What a reader does that may fail. */
    interface Attempt {
        void run() throws Exception;
    }

    /** Runs {@code attempt}; a failure is counted and remembered, and a VirtualMachineError ends the reader too. */
    void counted(Attempt attempt) {
        try {
            attempt.run();
        } catch (VirtualMachineError e) {
            failed(e);
            throw e;
        } catch (Throwable t) {
            failed(t);
        }
    }

    void failed(Throwable t) {
        failures.increment();
        lastFailure.set(t);
    }

    long failures() {
        return failures.sum();
    }

    /** Whether the reads keep failing: more than {@value #FAILURES_BEFORE_GIVING_UP} failures, and more than reads. */
    boolean givenUp() {
        long failed = failures.sum();
        return failed > FAILURES_BEFORE_GIVING_UP && failed > reads.sum();
    }

    /** The counts, for the warm-up's last log line. */
    String summary() {
        Throwable failure = lastFailure.get();
        return reads.sum() + " partition reads of " + keysFound.sum() + " keys, " + ownTableReads.sum()
                + " reads of Cassandra's own tables as a driver connecting (" + connections.sum() + " times), "
                + notLocal.sum() + " keys another node owns skipped, "
                + failures.sum() + " failed" + (failure == null ? "" : " (the last: " + failure + ")");
    }
}
