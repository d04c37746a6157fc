package io.flashchunk.device;

import org.HdrHistogram.Histogram;

/**
 * Counters of a device since it was opened. Latency histograms are in nanoseconds, from submission
 * (including time spent waiting for a queue slot) to completion, for successful requests only.
 */
public record DeviceStats(
        long readOps,
        long writeOps,
        long readBytes,
        long writeBytes,
        long readErrors,
        long writeErrors,
        int inFlight,
        int waiting,
        int maxInFlight,
        Histogram readLatencyNanos,
        Histogram writeLatencyNanos) {
}
