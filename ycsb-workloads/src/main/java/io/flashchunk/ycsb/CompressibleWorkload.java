package io.flashchunk.ycsb;

import java.util.Properties;
import site.ycsb.DB;
import site.ycsb.WorkloadException;
import site.ycsb.generator.HotspotIntegerGenerator;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB's {@code CoreWorkload} with values that compress like real data: every field written, on
 * load and on update, is {@link CompressibleValueGenerator#valueFor} of its key and field, of the
 * length YCSB chose. Settings: {@link CompressionSettings}.
 *
 * <p>Values depend on key and field only, so an update rewrites the same bytes, and anyone with
 * the same settings can recompute what a record should hold.
 *
 * <p>With {@value #MOVE_AFTER_SECONDS} (and {@code requestdistribution=hotspot}) the hot set moves
 * once, that many seconds after the first key is chosen, to the disjoint range just above it
 * ({@link MovingHotspotGenerator}); 0: moved from the start; absent or negative: never.
 */
public class CompressibleWorkload extends CoreWorkload {
    public static final String MOVE_AFTER_SECONDS = "flashchunk.hotspot.moveafterseconds";

    private CompressibleValueGenerator generator;

    @Override
    public void init(Properties p) throws WorkloadException {
        if (Boolean.parseBoolean(p.getProperty(DATA_INTEGRITY_PROPERTY, DATA_INTEGRITY_PROPERTY_DEFAULT))) {
            // CoreWorkload would check reads against its own values, which this workload replaces.
            throw new WorkloadException(DATA_INTEGRITY_PROPERTY + "=true does not work with " + getClass().getName()
                    + ": it writes its own values; leave " + DATA_INTEGRITY_PROPERTY + " unset");
        }
        CompressionSettings settings = CompressionSettings.from(p);
        super.init(p);
        generator = settings.generator(1);
        double moveAfter = Double.parseDouble(p.getProperty(MOVE_AFTER_SECONDS, "-1"));
        if (moveAfter >= 0) {
            if (!(keychooser instanceof HotspotIntegerGenerator hotspot)) {
                throw new WorkloadException(MOVE_AFTER_SECONDS + " needs requestdistribution=hotspot");
            }
            try {
                keychooser = MovingHotspotGenerator.of(hotspot, moveAfter);
            } catch (IllegalArgumentException e) {
                throw new WorkloadException(e.getMessage());
            }
        }
    }

    @Override
    public boolean doInsert(DB db, Object threadstate) {
        return super.doInsert(new CompressibleValuesDb(db, generator), threadstate);
    }

    @Override
    public boolean doTransaction(DB db, Object threadstate) {
        return super.doTransaction(new CompressibleValuesDb(db, generator), threadstate);
    }

    /** The moving hot set's key choice, or null when the hot set stays put. */
    public MovingHotspotGenerator movingHotspot() {
        return keychooser instanceof MovingHotspotGenerator moving ? moving : null;
    }

    /** The generator values come from, for reports and checks. */
    public CompressibleValueGenerator generator() {
        return generator;
    }
}
