package io.flashchunk.cache.format;

import java.util.Objects;

/**
 * Which run and which start of a cache last wrote a superblock: what tells, at the next start, the
 * devices that took part in the cache's last start from any other ({@code DeviceSet} judges by it).
 * A value: equal when every field is.
 */
public final class StartStamp {
    /** What a release before stamps leaves (zeros): run 0, no start, settled. */
    public static final StartStamp NONE = new StartStamp(0, 0, 0, 0, true);

    private final long runId;
    private final long startId;
    private final long previousStartId;
    private final long startedMillis;
    private final boolean settled;

    /**
     * @param runId           the set of devices the cache runs on: every device of it the same; a start
     *                        that changes the set gives it a new one (0: none recorded, as by a release
     *                        before stamps)
     * @param startId         the start that wrote it: random, the same on every device of that start (0:
     *                        none recorded)
     * @param previousStartId the last start before it whose devices all held their stamp: a device still
     *                        of that start was left behind by a crash while this one wrote the
     *                        superblocks, as long as no device of this one is settled (0: none)
     * @param startedMillis   the wall clock at that start: orders runs apart that reserved the same
     *                        sequences (each raised its limit from where they parted)
     * @param settled         whether every device of that start held its stamp before the cache served
     *                        from them: a start writes each superblock unsettled, then, all flushed, settled
     */
    public StartStamp(long runId, long startId, long previousStartId, long startedMillis, boolean settled) {
        this.runId = runId;
        this.startId = startId;
        this.previousStartId = previousStartId;
        this.startedMillis = startedMillis;
        this.settled = settled;
    }

    public long runId() {
        return runId;
    }

    public long startId() {
        return startId;
    }

    public long previousStartId() {
        return previousStartId;
    }

    public long startedMillis() {
        return startedMillis;
    }

    public boolean settled() {
        return settled;
    }

    /** This stamp as a start's second write: every device of the start holds it. */
    public StartStamp asSettled() {
        return new StartStamp(runId, startId, previousStartId, startedMillis, true);
    }

    /** Whether {@code other} was written by the same start of the same run. */
    public boolean sameStart(StartStamp other) {
        return runId == other.runId && startId == other.startId;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StartStamp)) {
            return false;
        }
        StartStamp other = (StartStamp) o;
        return runId == other.runId && startId == other.startId && previousStartId == other.previousStartId
                && startedMillis == other.startedMillis && settled == other.settled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(runId, startId, previousStartId, startedMillis, settled);
    }

    @Override
    public String toString() {
        return "StartStamp[runId=" + runId + ", startId=" + startId + ", previousStartId=" + previousStartId
                + ", startedMillis=" + startedMillis + ", settled=" + settled + "]";
    }
}
