#!/usr/bin/env python3
"""Where the node's CPU went, per configuration: the profiles of bench_ycsb.py --profile, side by side.

Reads OUT/profile-<workload>[-<table>-<storage>]-<config>[-round<n>].collapsed.xz (async-profiler's collapsed stacks,
thread names as root frames; all rounds of a configuration together) and OUT/raw.jsonl (CPU ms per op of the same measurement). Each sample goes to the
first category below whose rule matches its stack; a category's CPU per op is its share of the
samples times the measurement's CPU per op. Writes OUT/profile.md and OUT/profile-<workload>.png;
OUT/restart-profile-*.collapsed.xz (the first 30 s after a restart) add a section of sample shares.

    python3 scripts/bench_profile_report.py target/results/ycsb-...
    python3 scripts/bench_profile_report.py --self-test
"""
import collections
import glob
import json
import lzma
import os
import re
import statistics
import sys
import tempfile

import benchlib

log = benchlib.logger("bench_profile_report")

# (name, rule on the thread name, rule on the whole stack, rule on its innermost Java frame); the
# first category with a matching rule takes the sample, the last takes the rest.
CATEGORIES = [
    ("garbage collection", r"GC Thread|G1 |VM Thread|Conc", None, None),
    ("JIT compilers", r"CompilerThre", None, None),
    ("LZ4 decompression", None, r"lz4|LZ4", None),
    ("checksums (CRC32, CRC32C)", None, r"CRC32", None),
    # Before the flash cache's rules: a miss reads the SSTable under the cache's frames.
    ("SSTable reads in the kernel", None, r"(ChunkReader[^;]*\.readChunk|ChannelProxy\.read).*\[k\]", None),
    ("flash cache: device I/O (libaio, kernel)", None, r"io/flashchunk.*(\[k\]|io_submit|io_getevents|pread|libaio)",
     None),
    ("flash cache: other", None, r"io/flashchunk", None),
    ("Caffeine (maintenance, lookups)", None, r"com/github/benmanes/caffeine", None),
    # A read whose key the key cache did not have looks its partition up in the SSTable's index.
    ("Cassandra: partition index lookups", None, r"getRowIndexEntry|IndexSummary|RowIndexEntry|getPosition", None),
    ("network (Netty, epoll)", None, None, r"io/netty|epoll"),
    ("kernel: other", None, r"\[k\]", None),
    ("Cassandra and JVM: other", None, None, None),
]
JAVA_FRAME = re.compile(r"^[\w$]+(/[\w$]+)+\.")
# Runs before tables and caps existed left the case out of the name: LZ4 on the same disk.
NAME = re.compile(r"profile-(?P<workload>.+?)(?:-(?P<table>lz4|zstd-9|zstd|raw)-(?P<storage>same-disk|cap\d+))?"
                  r"-(?P<config>(base|flash)-.+?)(-round\d+)?\.collapsed(\.xz)?$")


def section(workload, table, storage):
    """The heading of a workload and case, as profile names and raw.jsonl both give it."""
    return f"{workload}-{table or 'lz4'}-{storage or 'same-disk'}"


def storage_of(row):
    cap = row.get("cap_iops")
    return "same-disk" if cap is None else f"cap{cap}"


def category(stack):
    frames = stack.split(";")
    innermost = next((f for f in reversed(frames) if JAVA_FRAME.match(f)), "")
    for name, thread_rule, stack_rule, java_rule in CATEGORIES:
        if ((thread_rule and re.search(thread_rule, frames[0])) or (stack_rule and re.search(stack_rule, stack))
                or (java_rule and re.search(java_rule, innermost))):
            return name
    return CATEGORIES[-1][0]


def categorize(path, counts=None):
    counts = collections.Counter() if counts is None else counts
    for line in (lzma.open(path, "rt") if path.endswith(".xz") else open(path)):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if count.isdigit():
            counts[category(stack)] += int(count)
    return counts


def profiled_measurements(out):
    """(workload, config) -> ops/s and CPU ms per op at the profiled (last) target: medians over the rounds."""
    profiled = json.load(open(os.path.join(out, "setup.json")))["targets"][-1]
    groups = collections.defaultdict(list)
    for line in open(os.path.join(out, "raw.jsonl")):
        r = json.loads(line)
        if r.get("phase", "steady") == "steady" and "error" not in r and r["target"] == profiled:
            groups[(section(r["workload"], r.get("table"), storage_of(r)), r["config"])].append(r)
    return {key: {field: statistics.median(r[field] for r in rows) for field in ("ops_per_s", "cpu_ms_per_op")}
            for key, rows in groups.items()}


def report(out):
    per_op = profiled_measurements(out)
    profiles = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(out, "profile-*.collapsed*"))):
        m = NAME.search(os.path.basename(path))
        if m:
            categorize(path, profiles[section(m["workload"], m["table"], m["storage"])]
                       .setdefault(m["config"], collections.Counter()))
    if not profiles:
        log(f"no profile-*.collapsed in {out} (run scripts/bench-ycsb.sh --profile)")
        return 1
    lines = ["# Where the node's CPU goes (async-profiler, cpu samples every 1 ms)", ""]
    for workload, configs in profiles.items():
        names = list(configs)
        lines += [f"## {workload}", "", "CPU ms per op by category (share of the samples in brackets; the samples of all "
                  "rounds pooled); ops/s and CPU per op of the same measurements (medians over rounds).", "",
                  "| category | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        totals = {c: sum(configs[c].values()) for c in names}
        for name, *_ in CATEGORIES:
            cells = []
            for c in names:
                share = configs[c][name] / totals[c] if totals[c] else 0
                ms = share * (per_op.get((workload, c), {}).get("cpu_ms_per_op") or 0)
                cells.append(f"{ms:.3f} ({share:.0%})")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("| **total CPU ms per op** | " + " | ".join(
            f"{per_op.get((workload, c), {}).get('cpu_ms_per_op') or 0:.3f}" for c in names) + " |")
        lines.append("| ops/s | " + " | ".join(
            f"{per_op.get((workload, c), {}).get('ops_per_s') or 0:,.0f}" for c in names) + " |")
        lines.append("| samples | " + " | ".join(f"{totals[c]:,}" for c in names) + " |")
        lines.append("")
        log(f"plot: {plot(out, workload, names, configs, totals, per_op)}")
    lines += restart_section(out)
    open(os.path.join(out, "profile.md"), "w").write("\n".join(lines))
    print("\n".join(lines))
    return 0


RESTART_NAME = re.compile(r"restart-profile-(?P<case>.+)-(?P<config>(base|flash)-.+?)-(?P<kind>clean|kill)"
                          r"(-round\d+)?\.collapsed(\.xz)?$")


RESTART_PROFILE_S = 30


def first_seconds_cpu_per_op(rows, seconds=RESTART_PROFILE_S):
    """{(case, config, kind): the node's CPU ms per YCSB op over the first seconds after CQL-ready}, from the
    restart rows that carry the node's CPU a second (ramp_resources; rounds averaged)."""
    found = collections.defaultdict(list)
    for r in rows:
        if r.get("phase") != "restart" or not r.get("ramp_resources") or not r.get("timeline"):
            continue
        # YCSB's 5 s windows that ended within the seconds, and the node's CPU over the same span.
        windows = [w for w in r["timeline"] if 0 < w[0] <= seconds]
        if not windows:
            continue
        ops = sum(w[1] for w in windows) / len(windows)
        cpu = benchlib.interval_mean(r["ramp_resources"], "cpu", 0, max(w[0] for w in windows))
        if cpu is not None and ops:
            key = (section(r["workload"], r.get("table"), storage_of(r)), r["config"], r.get("kind", "clean"))
            found[key].append(cpu * 1000 / ops)
    return {k: statistics.mean(v) for k, v in found.items()}


def restart_section(out):
    """Shares of the samples by category in the first 30 s after each restart's CQL-ready, beside the
    warm profile of the same configuration: what the restarted node spends its CPU on while it ramps;
    with the node's CPU a second in raw.jsonl, each share as CPU ms per op too."""
    restarts = collections.defaultdict(collections.Counter)
    keys = {}
    for path in sorted(glob.glob(os.path.join(out, "restart-profile-*.collapsed*"))):
        m = RESTART_NAME.search(os.path.basename(path))
        if m:
            name = f"{m['config']}, {m['kind']} restart ({m['case']})"
            categorize(path, restarts[name])
            keys[name] = (m["case"], m["config"], m["kind"])
    if not restarts:
        return []
    rows = []
    raw = os.path.join(out, "raw.jsonl")
    if os.path.exists(raw):
        with open(raw) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    per_op = first_seconds_cpu_per_op(rows)
    names = list(restarts)
    totals = {n: sum(restarts[n].values()) for n in names}
    lines = ["## The first 30 s after a restart", "", "Share of the node's CPU samples by category (all rounds "
             "pooled), from CQL-ready on; in brackets, CPU ms per op, where the run recorded the node's CPU a second "
             "(the share times the node's CPU over those seconds divided by YCSB's operations then).", "",
             "| category | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]

    def cell(n, count):
        share = count / totals[n] if totals[n] else 0
        ms = per_op.get(keys[n])
        return f"{share:.0%}" + (f" ({share * ms:.3f})" if ms is not None else "")

    for name, *_ in CATEGORIES:
        lines.append(f"| {name} | " + " | ".join(cell(n, restarts[n][name]) for n in names) + " |")
    lines.append("| samples (1 ms each, all threads) | " + " | ".join(f"{totals[n]:,}" for n in names) + " |")
    if any(keys[n] in per_op for n in names):
        lines.append("| **CPU ms per op** | " + " | ".join(
            f"**{per_op[keys[n]]:.3f}**" if keys[n] in per_op else "" for n in names) + " |")
    lines.append("")
    return lines


def plot(out, workload, names, configs, totals, per_op):
    plt = benchlib.import_pyplot(log)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bottoms = [0.0] * len(names)
    colors = plt.get_cmap("tab20").colors
    for i, (name, *_) in enumerate(CATEGORIES):
        values = []
        for c in names:
            share = configs[c][name] / totals[c] if totals[c] else 0
            values.append(share * (per_op.get((workload, c), {}).get("cpu_ms_per_op") or 0))
        ax.bar(names, values, bottom=bottoms, label=name, color=colors[i % len(colors)])
        bottoms = [b + v for b, v in zip(bottoms, values)]
    ax.set_ylabel("node CPU ms per op")
    ax.set_title(f"Where the node's CPU goes per op, {workload}, unthrottled")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return benchlib.save_figure(plt, fig, os.path.join(out, f"profile-{workload}.png"))


def self_test():
    failures = []
    check = benchlib.checker(failures)
    stacks = {
        "[GC Thread#0 tid=1];G1ParTask::work": 5,
        "[ReadStage-1 tid=2];org/apache/cassandra/io/util/CompressedChunkReader.readChunk;LZ4_decompress_safe": 7,
        "[ReadStage-1 tid=2];org/apache/cassandra/io/util/CompressedChunkReader$Standard.readChunk;vfs_read_[k]": 5,
        "[ReadStage-1 tid=2];RandomAccessReader.reBuffer;io/flashchunk/cassandra/ChunkService.load;"
        "org/apache/cassandra/io/util/ChannelProxy.read;vfs_read_[k]": 6,
        "[ReadStage-2 tid=3];io/flashchunk/cache/SegmentFlashCache.get;java/util/zip/CRC32C.update": 13,
        "[ReadStage-2 tid=3];RandomAccessReader.reBuffer;io/flashchunk/device/AioEngine.submit;io_submit_[k]": 17,
        "[flashchunk-writer tid=4];io/flashchunk/cache/engine/CacheEngine.writeLoop": 19,
        "[epollEventLoopGroup-2-1 tid=5];io/netty/channel/epoll/Native.epollWait;ep_poll_[k]": 23,
        "[Native-Transport-Requests-1 tid=6];io/netty/X.run;com/github/benmanes/caffeine/cache/B.get": 31,
        "[ReadStage-1 tid=2];org/apache/cassandra/db/ReadCommand.executeLocally": 29,
    }
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "profile-w-flash-4x.collapsed")
        with open(path, "w") as f:
            for stack, count in stacks.items():
                f.write(f"{stack} {count}\n")
        for name, want in (("profile-paper-read100-flash-4x-round2.collapsed.xz",
                            ("paper-read100-lz4-same-disk", "flash-4x")),
                           ("profile-paper-read80-update20-zstd-9-cap750-base-c-2M.collapsed.xz",
                            ("paper-read80-update20-zstd-9-cap750", "base-c-2M"))):
            m = NAME.search(name)
            check(f"name {name}", (section(m["workload"], m["table"], m["storage"]), m["config"]), want)
        ramp = {"phase": "restart", "workload": "paper-read100", "table": "lz4", "cap_iops": 750, "config": "flash-4x",
                "kind": "kill", "timeline": [[-5.0, 9000.0, 1.0], [5.0, 900.0, 1.0], [10.0, 1100.0, 1.0], [35.0, 5000.0, 1.0]],
                "ramp_resources": [{"t": 1.0, "cpu": 1.0}, {"t": 30.0, "cpu": 2.0}, {"t": 31.0, "cpu": 9.0}]}
        # ops: the windows ending by 30 s (1,000/s, the last at 10 s); CPU over [0, 10] s, weighted: (1 + 2 x 9) / 10
        check("CPU per op over a restart's first 30 s", first_seconds_cpu_per_op([ramp, dict(ramp, phase="measure")]),
              {("paper-read100-lz4-cap750", "flash-4x", "kill"): 1.9})
        m = RESTART_NAME.search("restart-profile-paper-read100-lz4-cap750-flash-4x-clean-round2.collapsed.xz")
        check("restart profile name", (m["case"], m["config"], m["kind"]), ("paper-read100-lz4-cap750", "flash-4x", "clean"))
        counts = categorize(path)
        check("GC by thread name", counts["garbage collection"], 5)
        check("LZ4 before the kernel", counts["LZ4 decompression"], 7)
        check("SSTable reads in the kernel, a miss's too", counts["SSTable reads in the kernel"], 11)
        check("checksums inside the flash cache", counts["checksums (CRC32, CRC32C)"], 13)
        check("flash device I/O under Cassandra's reader", counts["flash cache: device I/O (libaio, kernel)"], 17)
        check("flash cache other", counts["flash cache: other"], 19)
        check("network by its innermost Java frame", counts["network (Netty, epoll)"], 23)
        check("Caffeine under a Netty thread", counts["Caffeine (maintenance, lookups)"], 31)
        check("the rest", counts["Cassandra and JVM: other"], 29)
        check("every sample counted once", sum(counts.values()), sum(stacks.values()))
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    sys.exit(benchlib.main(sys.argv, __doc__, report, self_test))
