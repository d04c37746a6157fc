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
INTERVAL_OPS = re.compile(r"\[([A-Z]+(?:-FAILED)?): Count=(\d+), Max=\d+, Min=\d+, Avg=([\d.]+)(?:, 90=\d+, 99=(\d+))?")
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


STATUS_INTERVAL_S = 5


def windows(texts):
    """{seconds: window} of the clients' status lines, summed over clients: "ops" (successful ops/s:
    YCSB's own "current ops/sec" counts failed operations too, and a client whose node is down fails
    thousands a second), "at" (the mean wall-clock end, epoch seconds), "length" (the longest
    client's, seconds) and per operation
    ("READ", "UPDATE", "READ-FAILED", ...) its count and the count-weighted sums of its average and
    99th percentile (us). A client frozen (SIGSTOP) and resumed reports its missed deadlines at once:
    such catch-up reports, under half an interval long, measure nothing and are left out."""
    result = {}
    for text in texts:
        previous = None
        for line in text.splitlines():
            m = STATUS_LINE.search(line.strip())
            if not m:
                continue
            at = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000
            length = STATUS_INTERVAL_S if previous is None else at - previous
            previous = at
            if length < STATUS_INTERVAL_S / 2:
                continue
            window = result.setdefault(int(m.group(3)), {"ops": 0.0, "times": [], "length": 0.0})
            operations = INTERVAL_OPS.findall(line)
            window["ops"] += sum(int(count) for op, count, _, _ in operations if not op.endswith("-FAILED")) / length
            window["times"].append(at)
            window["length"] = max(window["length"], length)
            for op, count, avg, p99 in operations:
                totals = window.setdefault(op, [0, 0.0, 0.0])
                totals[0] += int(count)
                totals[1] += int(count) * float(avg)
                totals[2] += int(count) * float(p99 or 0)
    for window in result.values():
        window["at"] = statistics.mean(window.pop("times"))
    return result


def measured(texts, after, until):
    """One result from the status windows that closed after `after` and by `until` seconds of the
    clients' run: the mean throughput, and per operation its count, count-weighted average latency
    and 99th percentile of the windows (ms), and failures. The clients' closing summary is not used:
    it would count their own warm-up."""
    chosen = [w for t, w in sorted(windows(texts).items()) if after < t <= until]
    result = {"ops_per_s": statistics.mean(w["ops"] for w in chosen) if chosen else 0.0, "windows": len(chosen)}
    for op in ("READ", "UPDATE", "INSERT"):
        count = sum(w.get(op, [0])[0] for w in chosen)
        failed = sum(w.get(op + "-FAILED", [0])[0] for w in chosen)
        if count == 0 and failed == 0:
            continue
        key = op.lower()
        result[f"{key}_ops"] = count
        result[f"{key}_failed"] = failed
        if count:
            result[f"{key}_avg_ms"] = sum(w[op][1] for w in chosen if op in w) / count / 1000
            result[f"{key}_p99_ms"] = sum(w[op][2] for w in chosen if op in w) / count / 1000
    return result


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
    [seconds since origin at the window's end, ops/s, read avg ms]. Windows longer than one and a
    half intervals (one that spans a freeze mixes two periods) are left out."""
    timeline = []
    for _, window in sorted(windows(texts).items()):
        if window["length"] > 1.5 * STATUS_INTERVAL_S:
            continue
        reads = window.get("READ", [0, 0.0, 0.0])
        timeline.append([round(window["at"] - origin, 1), round(window["ops"], 1),
                         round(reads[1] / reads[0] / 1000, 3) if reads[0] else None])
    return timeline


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
    # A measurement from the windows after the clients' warm-up: 10 s < t <= 20 s.
    failing = status(20, 1000.0, 5000, 5000) + " [READ-FAILED: Count=7, Max=1, Min=1, Avg=1.0, 90=1, 99=1]"
    late = measured([client.replace(status(20, 1000.0, 5000, 5000), failing), client], 10, 20)
    check("windows in the span", late["windows"], 2)
    check("throughput: the mean of the windows", late["ops_per_s"], 2000.0)
    check("reads counted in the span only", late["read_ops"], 20000)
    check("read avg weighted by count", late["read_avg_ms"], 4.0)
    check("read p99: count-weighted mean of the windows'", late["read_p99_ms"], 0.002)
    check("failures in the span", late["read_failed"], 7)
    check("no windows, no throughput", measured([client], 100, 200)["ops_per_s"], 0.0)
    # Frozen from 12 s to 40 s: the resumed client reports the window spanning the freeze (28 s long)
    # and catches up on its missed deadlines at once; neither is a measurement.
    frozen = "\n".join([status(5, 400.0, 2000, 9000), status(10, 800.0, 4000, 4000),
                         "2026-11-22 11:40:40:250 40 sec: 9000 operations; 35.7 current ops/sec; [READ: Count=1000, "
                         "Max=1, Min=1, Avg=1.0, 90=1, 99=1]",
                         "2026-11-22 11:40:40:260 40 sec: 9001 operations; 100000.0 current ops/sec; [READ: Count=1, "
                         "Max=1, Min=1, Avg=1.0, 90=1, 99=1]",
                         "2026-11-22 11:40:45:250 45 sec: 13000 operations; 800.0 current ops/sec; [READ: Count=4000, "
                         "Max=1, Min=1, Avg=1000.0, 90=1, 99=1]"])
    check("catch-up reports left out", [t for t in windows([frozen])], [5, 10, 40, 45])
    check("the window spanning the freeze is out of the timeline", [w[1] for w in since([frozen], origin)],
          [400.0, 800.0, 801.6])  # 4,000 reads since the catch-up report at 40.26 s
    check("no window yet", mean_until(timeline, 5), None)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    import benchlib
    sys.exit(benchlib.self_test_only(sys.argv, __doc__, self_test))
