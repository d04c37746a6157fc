package io.flashchunk.cassandra.it;

/** {@link RestartIT} on the compact engine: warm after a clean restart and a SIGKILL, deleted files dropped. */
class CompactRestartIT extends RestartIT {
    @Override
    String nodeName() {
        return "restart-compact";
    }

    @Override
    String engineSettings() {
        return "cache_engine: compact\nsegment_size_mib: 1";
    }
}
