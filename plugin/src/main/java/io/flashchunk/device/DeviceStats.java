package io.flashchunk.device;

import org.HdrHistogram.Histogram;

/**
 * Counters of a device since it was opened. Latency histograms are in nanoseconds, from submission
 * (including time spent waiting for a queue slot) to completion, for successful requests only.
 */
public final class DeviceStats {
    private final long readOps;
    private final long writeOps;
    private final long readBytes;
    private final long writeBytes;
    private final long readErrors;
    private final long writeErrors;
    private final int inFlight;
    private final int waiting;
    private final int maxInFlight;
    private final Histogram readLatencyNanos;
    private final Histogram writeLatencyNanos;

    public DeviceStats(long readOps, long writeOps, long readBytes, long writeBytes, long readErrors, long writeErrors,
                       int inFlight, int waiting, int maxInFlight, Histogram readLatencyNanos,
                       Histogram writeLatencyNanos) {
        this.readOps = readOps;
        this.writeOps = writeOps;
        this.readBytes = readBytes;
        this.writeBytes = writeBytes;
        this.readErrors = readErrors;
        this.writeErrors = writeErrors;
        this.inFlight = inFlight;
        this.waiting = waiting;
        this.maxInFlight = maxInFlight;
        this.readLatencyNanos = readLatencyNanos;
        this.writeLatencyNanos = writeLatencyNanos;
    }

    public long readOps() {
        return readOps;
    }

    public long writeOps() {
        return writeOps;
    }

    public long readBytes() {
        return readBytes;
    }

    public long writeBytes() {
        return writeBytes;
    }

    public long readErrors() {
        return readErrors;
    }

    public long writeErrors() {
        return writeErrors;
    }

    public int inFlight() {
        return inFlight;
    }

    public int waiting() {
        return waiting;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public Histogram readLatencyNanos() {
        return readLatencyNanos;
    }

    public Histogram writeLatencyNanos() {
        return writeLatencyNanos;
    }

    @Override
    public String toString() {
        return "DeviceStats[readOps=" + readOps + ", writeOps=" + writeOps + ", readBytes=" + readBytes
                + ", writeBytes=" + writeBytes + ", readErrors=" + readErrors + ", writeErrors=" + writeErrors
                + ", inFlight=" + inFlight + ", waiting=" + waiting + ", maxInFlight=" + maxInFlight
                + ", readLatencyNanos=" + readLatencyNanos + ", writeLatencyNanos=" + writeLatencyNanos + "]";
    }
}
