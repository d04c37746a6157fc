package io.flashchunk.sim;

import java.util.SplittableRandom;

/** A {@link SegmentLog} that admits the chunks it misses, all of them or those its admission lets in. */
final class SegmentedCache implements SimulatedCache {
    private final SegmentLog log;
    private final Admission admission;
    private final SplittableRandom random = new SplittableRandom(1);

    /** @param admission {@code null}: every missed chunk is admitted */
    SegmentedCache(SegmentLog log, Admission admission) {
        this.log = log;
        this.admission = admission;
    }

    @Override
    public boolean access(long key, int bytes) {
        if (admission != null) {
            admission.accessed(key);
        }
        if (log.read(key)) {
            return true;
        }
        if (admission == null || admission.admit(key, log.victimSample(random))) {
            log.admit(key, bytes);
        }
        return false;
    }

    @Override
    public long admittedBytes() {
        return log.admittedBytes();
    }

    @Override
    public long writtenBytes() {
        return log.writtenBytes();
    }
}
