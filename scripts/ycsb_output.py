#!/usr/bin/env python3
"""What YCSB prints, made into numbers: its closing summary, its status lines (one per client every
5 s with `-s -p status.interval=5`), and what the benchmark derives from them (settled throughput,
time to reach a share of a reference throughput). Pure functions; `--self-test` checks them."""
import re
import statistics
import sys
import time

SUMMARY_LINE = re.compile(r"^\[(\w[\w-]*)\], ([^,]+), ([-0-9.eE]+)$")
# "2026-11-22 11:40:05:123 5 sec: 500 operations; 100.0 current ops/sec; ... [READ: Count=..., Avg=...]"
STATUS_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d):(\d{3}) (\d+) sec: \d+ operations; ([\d.]+) current ops/sec")
# The status line ends with each operation's histogram over the last interval (latencies in us).
INTERVAL_READS = re.compile(r"\[READ: Count=(\d+), Max=\d+, Min=\d+, Avg=([\d.]+)")
# Each measurement starts new client JVMs; their first seconds run the driver's code cold.
CLIENT_SETTLE_S = 10


def parse_summary(output):
    """{(section, metric): value} of YCSB's closing summary."""
    stats = {}
    for line in output.splitlines():
        m = SUMMARY_LINE.match(line.strip())
        if m:
            stats[(m.group(1), m.group(2))] = float(m.group(3))
    return stats


def combine(outputs):
    """One result from several clients' summaries: throughputs add, latencies are weighted by
    operations, p99 is the worst client's."""
    result = {"ops_per_s": sum(o.get(("OVERALL", "Throughput(ops/sec)"), 0) for o in outputs)}
    for op in ("READ", "UPDATE", "INSERT"):
        count = sum(o.get((op, "Operations"), 0) for o in outputs)
        failed = sum(o.get((op + "-FAILED", "Operations"), 0) for o in outputs)
        if count == 0 and failed == 0:
            continue
        key = op.lower()
        result[f"{key}_ops"] = int(count)
        result[f"{key}_failed"] = int(failed)
        if count:
            result[f"{key}_avg_ms"] = sum(o.get((op, "AverageLatency(us)"), 0) * o.get((op, "Operations"), 0)
                                          for o in outputs) / count / 1000
            result[f"{key}_p99_ms"] = max(o.get((op, "99thPercentileLatency(us)"), 0) for o in outputs) / 1000
    return result


def status_intervals(texts):
    """[(seconds, ops/s, reads, read avg ms, at)] per status interval, summed over the clients' texts.
    Each client reports every 5 s from its own start; their windows line up to within a second or
    two, so a window is identified by its number of seconds and `at` is the mean wall-clock time
    (epoch seconds) at which the clients closed it."""
    sums = {}
    for text in texts:
        for line in text.splitlines():
            m = STATUS_LINE.search(line.strip())
            if not m:
                continue
            at = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000
            reads = INTERVAL_READS.search(line)
            count, avg_us = (int(reads.group(1)), float(reads.group(2))) if reads else (0, 0.0)
            ops, total_reads, latency_us, times = sums.get(int(m.group(3)), (0.0, 0, 0.0, []))
            sums[int(m.group(3))] = (ops + float(m.group(4)), total_reads + count, latency_us + count * avg_us,
                                     times + [at])
    return [(t, ops, count, latency_us / count / 1000 if count else None, statistics.mean(times))
            for t, (ops, count, latency_us, times) in sorted(sums.items())]


def settled(texts):
    """Throughput and average read latency without the clients' first CLIENT_SETTLE_S seconds, and the
    timeline [seconds, ops/s, read avg ms]."""
    intervals = status_intervals(texts)
    later = [(ops, count, avg) for t, ops, count, avg, _ in intervals if t > CLIENT_SETTLE_S]
    reads = sum(count for _, count, _ in later)
    return {"timeline": [[t, round(ops, 1), avg and round(avg, 3)] for t, ops, _, avg, _ in intervals],
            "ops_per_s_settled": statistics.mean(ops for ops, _, _ in later) if later else None,
            "read_avg_ms_settled": sum(count * avg for _, count, avg in later if count) / reads if reads else None}


def since(texts, origin):
    """The timeline measured from `origin` (epoch seconds, e.g. when the node answered CQL):
    [seconds since origin at the window's end, ops/s, read avg ms]."""
    return [[round(at - origin, 1), round(ops, 1), avg and round(avg, 3)]
            for _, ops, _, avg, at in status_intervals(texts)]


def time_to_reach(timeline, reference, share=0.9):
    """Seconds (from the timeline's origin) at the end of the first window whose throughput reached
    share x reference, or None if none did."""
    for seconds, ops, _ in timeline:
        if ops >= share * reference:
            return seconds
    return None


def mean_until(timeline, seconds):
    """Mean throughput of the windows that ended by `seconds` after the origin (None if none did)."""
    windows = [ops for t, ops, _ in timeline if t <= seconds]
    return statistics.mean(windows) if windows else None


def self_test():
    import benchlib
    failures = []
    check = benchlib.checker(failures)

    def status(t, ops, reads, avg_us, clock="11:40"):
        return (f"2026-11-22 {clock}:{t:02d}:250 {t} sec: {t * 100} operations; {ops} current ops/sec; est "
                f"completion in 1 day [READ: Count={reads}, Max=90000, Min=1000, Avg={avg_us}, 90=1, 99=2]")
    client = "\n".join([status(5, 400.0, 2000, 9000.5), status(10, 800.0, 4000, 4000),
                        status(15, 1000.0, 5000, 3000), status(20, 1000.0, 5000, 5000),
                        "[OVERALL], Throughput(ops/sec), 800.0", "[READ], Operations, 16000",
                        "[READ], AverageLatency(us), 4500.0", "[READ], 99thPercentileLatency(us), 20000"])
    intervals = status_intervals([client, client])
    check("intervals", len(intervals), 4)
    check("ops/s add over the clients", intervals[0][1], 800.0)
    check("reads add over the clients", intervals[0][2], 4000)
    check("interval read avg in ms", intervals[0][3], 9.0005)
    origin = time.mktime(time.strptime("2026-11-22 11:40:00", "%Y-%m-%d %H:%M:%S"))
    check("wall-clock end of a window", intervals[1][4] - origin, 10.25)
    later = settled([client, client])
    check("settled throughput: after 10 s", later["ops_per_s_settled"], 2000.0)
    check("settled read avg: weighted by reads", later["read_avg_ms_settled"], 4.0)
    check("nothing settled in a short run", settled([status(5, 1.0, 1, 1)])["read_avg_ms_settled"], None)
    overall = combine([parse_summary(client), parse_summary(client)])
    check("throughput adds", overall["ops_per_s"], 1600.0)
    check("read avg from the summary", overall["read_avg_ms"], 4.5)
    check("read p99 the worst client's", overall["read_p99_ms"], 20.0)
    # Restart timelines: from the moment the node answered, 3 s before the clients' clock origin.
    timeline = since([client, client], origin - 3)
    check("seconds since the origin", [t for t, _, _ in timeline], [8.2, 13.2, 18.2, 23.2])
    check("90% of 2,000 first reached", time_to_reach(timeline, 2000), 18.2)
    check("90% of 1,700 first reached", time_to_reach(timeline, 1700), 13.2)
    check("never reached", time_to_reach(timeline, 2300), None)
    check("mean of the windows up to 15 s", mean_until(timeline, 15), 1200.0)
    check("no window yet", mean_until(timeline, 5), None)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    print(__doc__.strip(), file=sys.stderr)
    sys.exit(2)
