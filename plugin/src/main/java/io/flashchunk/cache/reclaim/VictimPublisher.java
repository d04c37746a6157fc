package io.flashchunk.cache.reclaim;

import io.flashchunk.cache.admission.VictimAdmission;
import io.flashchunk.cache.format.RecordMismatchException;
import io.flashchunk.cache.format.SegmentSummary;
import io.flashchunk.cache.space.AddressSpaces;
import io.flashchunk.cache.space.SegmentState;
import io.flashchunk.cache.space.SegmentTable;
import java.io.IOException;
import java.util.Objects;

/**
 * Tells admission which chunks the next reclaim would drop (a sample of the segment the order names
 * next), so that a miss is admitted only against them; and draws samples for the segments a restart
 * brought back, which have none, from their summaries. Writer thread only.
 */
public final class VictimPublisher {
    private static final long[] NONE = new long[0];

    private final SegmentTable table;
    private final AddressSpaces spaces;
    private final ReclaimOrder order;
    private final VictimAdmission admission;
    private final SegmentSamples samples;
    private final Reclaimer reclaimer;
    private final RecoveredSummary alsoRead;
    /**
     * What else is learnt from a recovered segment's summary once it has been read for samples (its
     * records, its keys' files, its dead files' chunks); returns whether the segment is mostly dead.
     */
    @FunctionalInterface
    public interface RecoveredSummary {
        boolean read(int segment, SegmentSummary summary);
    }

    /** The next segment {@link #sampleRecovered} looks at; one pass over all of them after a start. */
    private int sampleCursor;

    /**
     * @param admission where victims are published, or null: none are
     * @param alsoRead  what else is done with a recovered segment's summary once read for samples
     */
    public VictimPublisher(SegmentTable table, AddressSpaces spaces, ReclaimOrder order,
                           VictimAdmission admission, SegmentSamples samples, Reclaimer reclaimer,
                           RecoveredSummary alsoRead) {
        this.table = table;
        this.spaces = spaces;
        this.order = order;
        this.admission = admission;
        this.samples = samples;
        this.reclaimer = reclaimer;
        this.alsoRead = alsoRead;
    }

    /**
     * Tells admission what the next reclaim would drop: nothing while a space has a free segment or a
     * dead segment goes next, else a sample of the segment the order names next.
     */
    public void publish() {
        if (admission == null) {
            return;
        }
        for (int space = 0; space < table.spaces(); space++) {
            if (table.freeSegments(space) > 0) {
                admission.victims(NONE);
                return;
            }
        }
        int next = reclaimer.nextDead();
        if (next != -1) {
            admission.victims(NONE); // a dead segment goes next: nothing live has to make room
            return;
        }
        // The order's next, not a doomed segment: those go whatever is admitted; an admission makes
        // the order give up its next one sooner.
        next = order.next();
        if (next != -1 && samples.of(next).length == 0 && table.state(next) == SegmentState.DURABLE) {
            // Recovered segments have no samples yet: draw them from the segment's summary.
            SegmentSummary summary = spaces.summaryOrNull(table, next);
            if (summary != null) {
                sampleFrom(next, summary);
                alsoRead.read(next, summary); // the pass will not read it again
            }
        }
        admission.victims(next == -1 ? NONE : samples.of(next));
    }

    /**
     * Draws samples for up to {@code max} durable segments that have none (the segments recovery
     * brought back: samples are drawn as chunks are appended, and a restart starts without them),
     * from their summaries, one read each, each summary then handed to {@code alsoRead}; returns
     * whether segments are left to look at, and whether {@code alsoRead} found a segment mostly dead.
     * A segment whose summary does not check stays without samples and goes in the order's turn; a
     * device that fails or times out ends the pass. One pass after a start.
     *
     * @return whether segments are left to look at, and whether a mostly dead one was found
     */
    public Pass sampleRecovered(int max) {
        int drawn = 0;
        boolean foundDead = false;
        while (drawn < max && sampleCursor < table.segments()) {
            int segment = sampleCursor++;
            if (table.state(segment) != SegmentState.DURABLE || samples.of(segment).length > 0) {
                continue;
            }
            drawn++;
            SegmentSummary summary;
            try {
                summary = spaces.summaryOf(table, segment);
            } catch (RecordMismatchException e) {
                continue; // a summary that does not check: the segment goes in the order's turn
            } catch (IOException e) {
                // A failing or hung device: the pass ends here, so the writer waits one device timeout at most.
                sampleCursor = table.segments();
                break;
            }
            sampleFrom(segment, summary);
            foundDead |= alsoRead.read(segment, summary);
        }
        return new Pass(sampleCursor < table.segments(), foundDead);
    }

    /** What a {@link #sampleRecovered} call did: whether segments are left to look at, whether a dead one was found. */
    public static final class Pass {
        private final boolean more;
        private final boolean foundDead;

        public Pass(boolean more, boolean foundDead) {
            this.more = more;
            this.foundDead = foundDead;
        }

        public boolean more() {
            return more;
        }

        public boolean foundDead() {
            return foundDead;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Pass)) {
                return false;
            }
            Pass other = (Pass) o;
            return more == other.more
                    && foundDead == other.foundDead;
        }

        @Override
        public int hashCode() {
            return Objects.hash(more, foundDead);
        }

        @Override
        public String toString() {
            return "Pass[more=" + more + ", foundDead=" + foundDead + "]";
        }
    }

    /** Samples of a segment that has none (a recovered one), drawn from its summary's keys. */
    private void sampleFrom(int segment, SegmentSummary summary) {
        for (int i = 0; i < summary.count(); i++) {
            samples.appended(segment, summary.keys()[i]);
        }
    }
}
