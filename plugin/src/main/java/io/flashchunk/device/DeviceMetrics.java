package io.flashchunk.device;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/** Live counters of one device; recording is lock-free, {@link #snapshot} is not. */
final class DeviceMetrics {
    private static final int SIGNIFICANT_DIGITS = 3;

    private final LongAdder readOps = new LongAdder();
    private final LongAdder writeOps = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder writeBytes = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private final LongAdder writeErrors = new LongAdder();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final Recorder readRecorder = new Recorder(SIGNIFICANT_DIGITS);
    private final Recorder writeRecorder = new Recorder(SIGNIFICANT_DIGITS);
    // Recorders hand out interval histograms; these hold the running totals.
    private final Histogram readTotal = new Histogram(SIGNIFICANT_DIGITS);
    private final Histogram writeTotal = new Histogram(SIGNIFICANT_DIGITS);
    private Histogram readInterval;
    private Histogram writeInterval;

    void recordSuccess(IoOp op, int bytes, long nanos) {
        if (op == IoOp.READ) {
            readOps.increment();
            readBytes.add(bytes);
            readRecorder.recordValue(Math.max(1, nanos));
        } else {
            writeOps.increment();
            writeBytes.add(bytes);
            writeRecorder.recordValue(Math.max(1, nanos));
        }
    }

    void recordFailure(IoOp op) {
        (op == IoOp.READ ? readErrors : writeErrors).increment();
    }

    void observeInFlight(int inFlight) {
        if (inFlight > maxInFlight.get()) {
            maxInFlight.accumulateAndGet(inFlight, Math::max);
        }
    }

    synchronized DeviceStats snapshot(int inFlight, int waiting) {
        readInterval = readRecorder.getIntervalHistogram(readInterval);
        writeInterval = writeRecorder.getIntervalHistogram(writeInterval);
        readTotal.add(readInterval);
        writeTotal.add(writeInterval);
        return new DeviceStats(readOps.sum(), writeOps.sum(), readBytes.sum(), writeBytes.sum(),
                readErrors.sum(), writeErrors.sum(), inFlight, waiting, maxInFlight.get(),
                readTotal.copy(), writeTotal.copy());
    }
}
