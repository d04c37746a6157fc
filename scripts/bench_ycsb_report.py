#!/usr/bin/env python3
"""Tables, target checks and plots from scripts/bench-ycsb.sh results: python3 bench_ycsb_report.py DIR.

DIR holds setup.json and raw.jsonl (a line per configuration, case and target; restart lines with
phase "restart"). A case is a table (its compression) and the data device's cap (none: the same disk
as the flash file). Writes DIR/table.md and the plots, and prints the table:
- ycsb-<workload>[-<case>].png: throughput, latency, CPU and disk reads against the target rate;
- ycsb-sweep-<workload>-<table>.png: the same at the highest rate against the cap, when several caps ran;
- ycsb-restart-<workload>-<case>.png: throughput from the moment a restarted node answered CQL;
- ycsb-slowed-<workload>.png: with a device capped after the warm-up (flash-2x-slowed), its share of the
  flash reads and the throughput from the cap on.
"""
import itertools
import json
import os
import statistics
import sys
import tempfile

import bench_ycsb
import benchlib

log = benchlib.logger("bench_ycsb_report")
fmt = benchlib.fmt

# What the flash cache at M aims at on capped storage (docs/ycsb-benchmark.md), per case: flash four times
# the hot set against the same memory without it and against twice the memory (a drive against more RAM),
# and flash only as large as the hot set against the same memory.
THROUGHPUT_4X_VS_M = 12.0
THROUGHPUT_4X_VS_2M = 1.5
THROUGHPUT_1X_VS_M = 5.0
LATENCY_VS_M = 0.5
ZSTD_CPU_VS_M = 0.8
TARGET_MET_SHARE = 0.95  # a target rate counts as met at 95% of it


def num(value, digits):
    """A number with thousands separators, or n/a."""
    return "n/a" if value is None else f"{value:,.{digits}f}"


def target_name(target):
    return "max" if target == 0 else f"{target:,}"


def target_order(target):
    return 10**12 if target == 0 else target


def with_defaults(row):
    """Rows of runs before tables and caps existed: LZ4 on the same disk."""
    return {"table": "lz4", "cap_iops": None, "cap_mib_s": None, **row}


def load(out):
    setup = json.load(open(os.path.join(out, "setup.json")))
    setup.setdefault("tables", {"lz4": "LZ4, 64 KiB chunks"})
    setup.setdefault("caps", [None])
    rows = [with_defaults(json.loads(line)) for line in open(os.path.join(out, "raw.jsonl")) if line.strip()]
    return setup, [r for r in rows if "error" not in r], [r for r in rows if "error" in r]


def steady(rows):
    return [r for r in rows if r.get("phase", "steady") == "steady"]


def restarts(rows):
    return [r for r in rows if r.get("phase") == "restart"]


def cases(setup, rows):
    """(table, cap iops) pairs that have rows, in the order of the run."""
    caps = [None if c is None else c[0] for c in setup["caps"]]
    present = {(r["table"], r["cap_iops"]) for r in rows}
    return [(t, c) for t in setup["tables"] for c in caps if (t, c) in present]


def cap_label(setup, cap_iops):
    if cap_iops is None:
        return "same disk as the flash file"
    if cap_iops == 0:
        return "data on a device of its own, uncapped"
    mib_s = next(c[1] for c in setup["caps"] if c and c[0] == cap_iops)
    return f"data capped at {cap_iops:,} IOPS and {mib_s:g} MiB/s"


def case_label(setup, table, cap_iops):
    return f"{setup['tables'].get(table, table)}; {cap_label(setup, cap_iops)}"


def case_slug(table, cap_iops):
    return f"{table}-" + ("same-disk" if cap_iops is None else f"cap{cap_iops}")


def label_of(setup, rows, config):
    return setup.get("labels", {}).get(config) or next((r["label"] for r in rows if r["config"] == config), config)


# Numbers of a measurement that several rounds (bench_ycsb.py --repeat) reduce to a median and a range.
MEASURED = ("ops_per_s", "ops_per_s_settled", "read_avg_ms", "read_avg_ms_settled", "read_p99_ms", "update_avg_ms",
            "update_p99_ms", "cassandra_cpu", "cpu_ms_per_op", "disk_read_mb_s", "data_read_mb_s", "data_read_iops",
            "flash_disk_read_mb_s", "cap_read_iops", "cap_read_mb_s", "cap_write_iops", "chunk_cache_hit_ratio",
            "rss_mib", "page_cache_mib", "read_failed", "update_failed", "fill_s", "flash_hit_ratio",
            "flash_written_per_admitted_byte", "segment_written_per_admitted_byte", "reinserted", "reinserted_share",
            "checkpoint_share_of_flash_writes", "hot_chunks_moved", "last_device_read_share")


def group_key(r):
    return r["table"], r["cap_iops"], r["workload"], r["config"], r["target"]


def aggregate(rows):
    """One row per case, workload, configuration and target: the median of its rounds, with
    "<field>_range" = (min, max) when there were several."""
    groups = {}
    for r in rows:
        groups.setdefault(group_key(r), []).append(r)
    merged = []
    for group in groups.values():
        row = dict(group[0])
        row["rounds"] = len(group)
        if len(group) > 1:
            for field in MEASURED:
                values = [g[field] for g in group if g.get(field) is not None]
                if values:
                    row[field] = statistics.median(values)
                    row[field + "_range"] = (min(values), max(values))
        merged.append(row)
    return merged


def rounds_of(rows, table, cap, workload, target):
    """{round: {config: row}}"""
    per_round = {}
    for r in rows:
        if (r["table"], r["cap_iops"], r["workload"], r["target"]) == (table, cap, workload, target):
            per_round.setdefault(r.get("round", 0), {})[r["config"]] = r
    return per_round


def paired(rows, table, cap, workload, target, config, reference, field):
    """The ratios config/reference of a field, round by round (each from two runs minutes apart)."""
    ratios = []
    for _, p in sorted(rounds_of(rows, table, cap, workload, target).items()):
        if config in p and reference in p and p[config].get(field) is not None and p[reference].get(field):
            ratios.append(p[config][field] / p[reference][field])
    return ratios


def ratio_text(ratios):
    """'1.20x, 0.90x (median 1.05x)'; one ratio alone without the median."""
    if not ratios:
        return "n/a"
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}x"
    return f"{', '.join(f'{x:.2f}x' for x in ratios)} (median {statistics.median(ratios):.2f}x)"


def references(setup):
    return [c for c in ("base-c-M", "base-c-2M", "base-c-4M") if c in setup["configs"]] or setup["configs"][:1]


def paired_ratios(setup, rows):
    """Every configuration against the baseline at M (else the first one), and the flash caches against
    the baselines at 2M and 4M, at every target, round by round."""
    lines = []
    for (table, cap), workload, target, reference in itertools.product(
            cases(setup, rows), setup["workloads"], setup["targets"], references(setup)):
        for config in setup["configs"]:
            if config == reference or (reference in ("base-c-2M", "base-c-4M") and not config.startswith("flash")):
                continue
            if len(paired(rows, table, cap, workload, target, config, reference, "ops_per_s")) < 2:
                continue
            parts = [f"{what} {ratio_text(paired(rows, table, cap, workload, target, config, reference, field))}"
                     for what, field in (("throughput", "ops_per_s"), ("read avg", "read_avg_ms"),
                                         ("CPU per op", "cpu_ms_per_op"))]
            lines.append(f"- {workload}, {case_slug(table, cap)}, {config} / {reference}, target {target_name(target)}, "
                         "per round: " + "; ".join(p for p in parts if not p.endswith(" n/a")))
    return lines


def median_ratio(rows, table, cap, workload, target, config, reference, field):
    ratios = paired(rows, table, cap, workload, target, config, reference, field)
    return (statistics.median(ratios), ratios) if ratios else (None, [])


def verdict(ratio, limit, at_least):
    if ratio is None:
        return None
    return "met" if (ratio >= limit if at_least else ratio <= limit) else "NOT met"


def target_checks(setup, rows):
    """What the flash cache at M aims at, per case, on medians of paired rounds: flash at 4x the hot set
    (flash-4x) against the baselines at M and 2M, flash at 1x (flash-1x) against the baseline at M."""
    lines = []
    flash = "flash-4x"
    top = max(setup["targets"], key=target_order)
    for (table, cap), workload in itertools.product(cases(setup, rows), setup["workloads"]):
        where = f"{workload}, {case_slug(table, cap)}"
        checks = []

        def add(what, config, reference, field, limit, at_least, target=top):
            ratio, ratios = median_ratio(rows, table, cap, workload, target, config, reference, field)
            result = verdict(ratio, limit, at_least)
            if result:
                checks.append(f"  - {what}: {ratio:.2f}x ({'>=' if at_least else '<='} {limit:g}x): {result}"
                              + (f" [rounds: {', '.join(f'{x:.2f}x' for x in ratios)}]" if len(ratios) > 1 else ""))
        if table.startswith("zstd") and cap is None:
            add(f"CPU per op against the baseline at M, target {target_name(top)}", flash, "base-c-M",
                "cpu_ms_per_op", ZSTD_CPU_VS_M, False)
        if cap is not None:
            add(f"flash 4x the hot set, throughput against the same memory without it (baseline at M), target "
                f"{target_name(top)}", flash, "base-c-M", "ops_per_s", THROUGHPUT_4X_VS_M, True)
            add(f"flash 4x the hot set, throughput against twice the memory (baseline at 2M), target "
                f"{target_name(top)}", flash, "base-c-2M", "ops_per_s", THROUGHPUT_4X_VS_2M, True)
            add(f"flash 1x the hot set, throughput against the baseline at M, target {target_name(top)}", "flash-1x",
                "base-c-M", "ops_per_s", THROUGHPUT_1X_VS_M, True)
            for target in sorted(setup["targets"], key=target_order):
                baseline = [p["base-c-M"] for p in rounds_of(rows, table, cap, workload, target).values()
                            if "base-c-M" in p]
                meets = target == 0 or (baseline and statistics.median(b["ops_per_s"] for b in baseline)
                                        >= TARGET_MET_SHARE * target)
                if meets:
                    add(f"read latency (avg) against the baseline at M, target {target_name(target)}", flash,
                        "base-c-M", "read_avg_ms", LATENCY_VS_M, False, target)
            add(f"flash 4x the hot set, CPU per op against the baseline at 2M, target {target_name(top)}", flash,
                "base-c-2M", "cpu_ms_per_op", 1.0, False)
        if checks:
            lines += [f"- {where}, the flash cache at M:"] + checks
    return lines


def spread(row, field, digits):
    """A table cell: the value, with the range of the rounds in brackets when there were several."""
    value = row.get(field)
    if value is None:
        return "n/a"
    text = f"{value:,.{digits}f}"
    if field + "_range" in row:
        low, high = row[field + "_range"]
        text += f" ({low:,.{digits}f}-{high:,.{digits}f})"
    return text


def warmup_text(setup):
    if setup["warmup_s"] == "steady":
        return (f'until the chunk cache\'s hit ratio was steady ({setup.get("steady_windows", 4)} windows of '
                f'{setup.get("steady_window_s")} s in a row within {setup.get("steady_spread", 0.01) * 100:g} point; '
                f'a node without a chunk cache, stock Cassandra\'s default, until its throughput was: within '
                f'{setup.get("steady_throughput_spread", 0.05) * 100:g}% of the windows\' mean; '
                f'at most {setup.get("steady_max_s")} s; "cold fill s": when the cold node got there)')
    return f'{setup["warmup_s"]} s'


def table(setup, rows):
    rounds = setup.get("rounds", 1)
    filled = any(r.get("fill_s") is not None or "steady_reached" in r for r in rows)
    measured = sorted({r.get("rounds", 1) for r in rows}) if rounds > 1 else [1]
    lines = [(f"Medians of {rounds} rounds, each configuration once per round, odd rounds in reverse order (A B, B A, ...); the rounds' range in brackets"
              + (f" ({'some configurations ran ' + ' or '.join(map(str, measured)) + ' times'})" if len(measured) > 1 else "")
              + ".\n\n" if rounds > 1 else "") + f'Records: {setup["records"]:,} x 10 fields x {setup["field_length"]} B; heap {setup["heap"]}; '
             f'M = {setup["memory_bytes"] / 2**20:.0f} MiB; hot set {setup["hot_set_bytes"] / 2**20:.0f} MiB of '
             f'{setup["chunk_kb"]} KiB chunks; {setup["clients"]} YCSB clients x {setup["threads"]} threads; warm-up '
             f'{warmup_text(setup)}, {setup["measure_s"]} s per target'
             + (f' (each measured from the clients\' 5 s status windows after they ran {setup["settle_s"]} s, the '
                + ("unthrottled one's on the warm-up's own clients, from 20 s after it ended"
                   if setup.get("measured_on_warmup_clients") else
                   "unthrottled one's too, on new clients" if setup["warmup_s"] == "steady"
                   else "unthrottled one's after the warm-up")
                + f'; read p99: the windows\' 99th percentiles, weighted by their reads)' if "settle_s" in setup else "")
             + f'; data disk {setup["disk"]} read_ahead_kb '
             f'{setup["read_ahead_kb"]}.', ""]
    probes = setup.get("cap_probe_reads_per_s") or {}
    if probes:
        lines += ["Caps checked before measuring: random 4 KiB buffered reads (page cache dropped) from inside the "
                  "node's blkio group ran at " + ", ".join(f"{float(v):,.0f}/s under the {int(k):,} IOPS cap"
                                                         for k, v in probes.items()) + ".", ""]
    capped = any(c is not None for _, c in cases(setup, rows))
    for (tbl, cap), workload in itertools.product(cases(setup, rows), setup["workloads"]):
        selected = [r for r in rows if (r["table"], r["cap_iops"], r["workload"]) == (tbl, cap, workload)]
        if not selected:
            continue
        lines += [f"### {workload}: {case_label(setup, tbl, cap)}", "",
                  "| configuration | target | ops/s | read avg ms | read p99 ms | update avg ms "
                  "| CPU ms/op | Cassandra CPU | " + ("data reads/s (cap) | data MB/s | flash disk MB/s | " if capped
                                                    else "disk MB/s | ")
                  + "chunk cache hit ratio | RSS MiB | page cache MiB | failed ops |" + (" cold fill s |" if filled else ""),
                  "|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if capped else "---:|")
                  + "---:|---:|---:|---:|" + ("---:|" if filled else "")]
        for config in setup["configs"]:
            for r in sorted((r for r in selected if r["config"] == config), key=lambda r: target_order(r["target"])):
                failed = r.get("read_failed", 0) + r.get("update_failed", 0)
                if capped:
                    cap_text = "" if not cap else f" ({cap:,})"
                    io = (f'| {spread(r, "cap_read_iops", 0)}{cap_text} | {spread(r, "cap_read_mb_s", 1)} '
                          f'| {spread(r, "flash_disk_read_mb_s", 0)} ')
                else:
                    io = f'| {spread(r, "disk_read_mb_s", 0)} '
                lines.append(
                    f'| {r["label"]} | {target_name(r["target"])} | {spread(r, "ops_per_s", 0)} | {spread(r, "read_avg_ms", 2)} '
                    f'| {spread(r, "read_p99_ms", 1)} '
                    f'| {fmt(r.get("update_avg_ms"), 2)} | {spread(r, "cpu_ms_per_op", 3)} '
                    f'| {r["cassandra_cpu"] * 100:.0f}% ' + io
                    + f'| {fmt(r.get("chunk_cache_hit_ratio"), 2)} | {r.get("rss_mib", "n/a")} '
                      f'| {r.get("page_cache_mib", "n/a")} | {failed} |'
                    + (f' {fill_cell(r)} |' if filled else ""))
        lines.append("")
    return "\n".join(lines)


def fill_cell(row):
    """The cold cache's time to a steady hit ratio; 'not in N' when the warm-up's bound came first."""
    if row.get("steady_reached") is False:
        return f'not in {row.get("warmup_run_s")} s'
    return spread(row, "fill_s", 0)


CACHE_FIGURES = (("flash hit ratio", "flash_hit_ratio", 3), ("flash B written / admitted B",
                 "flash_written_per_admitted_byte", 2), ("segment B written / admitted B",
                 "segment_written_per_admitted_byte", 2), ("reinserted chunks", "reinserted", 0),
                 ("reinserted share of appended", "reinserted_share", 3),
                 ("checkpoint B / flash B written", "checkpoint_share_of_flash_writes", 4),
                 ("hot chunks moved", "hot_chunks_moved", 0),
                 ("last device's share of flash reads", "last_device_read_share", 3))


def cache_figures_table(setup, rows):
    """The flash cache's own figures over each measured window (deltas of its JMX counters), beside
    throughput, read latency and CPU per op; medians of the rounds with their ranges."""
    flash = [r for r in rows if any(r.get(field) is not None for _, field, _ in CACHE_FIGURES)]
    if not flash:
        return []
    lines = ["The flash cache over each measured window (its JMX counters' deltas; admitted bytes: chunks appended "
             "less those reinserted or moved between devices, at the table's chunk length):", "",
             "| case | configuration | target | ops/s | read avg ms | CPU ms/op | "
             + " | ".join(name for name, _, _ in CACHE_FIGURES) + " |",
             "|---|---|---:|---:|---:|---:|" + "---:|" * len(CACHE_FIGURES)]
    for r in sorted(flash, key=lambda r: (r["workload"], r["table"], str(r["cap_iops"]),
                                          setup["configs"].index(r["config"]) if r["config"] in setup["configs"] else 99,
                                          target_order(r["target"]))):
        lines.append(f'| {r["workload"]}, {case_slug(r["table"], r["cap_iops"])} | {r["label"]} '
                     f'| {target_name(r["target"])} | {spread(r, "ops_per_s", 0)} | {spread(r, "read_avg_ms", 2)} '
                     f'| {spread(r, "cpu_ms_per_op", 3)} | '
                     + " | ".join(spread(r, field, digits) for _, field, digits in CACHE_FIGURES) + " |")
    return lines


COUNTERS = {"flash hits": r"flash=(\d+)", "misses": r"misses=(\d+)", "paired reads": r"paired reads=(\d+)",
            "followers served": r"followers served (\d+)", "flash writes": r"flash writes=(\d+)",
            "checkpoints": r"checkpoints=(\d+)", "reinserted": r"reinserted (\d+)",
            "device bytes written": r"device bytes written=(\d+)"}


def counters(summary):
    """The numbers of the flash cache's closing log line (CacheStats.toString)."""
    import re
    found = {}
    for name, pattern in COUNTERS.items():
        m = re.search(pattern, summary or "")
        found[name] = int(m.group(1)) if m else None
    return found


def cache_stats_table(rows):
    """The flash cache's own counters at each clean stop: how often the overflow read paid."""
    lines = ["The flash cache's own counters (logged when it closed), per life of the node:", "",
             "| case | configuration | round | life | " + " | ".join(COUNTERS) + " | flash reads saved "
             "| device B written / admitted B |",
             "|---|---|---:|---|" + "---:|" * (len(COUNTERS) + 2)]
    for r in rows:
        c = counters(r.get("summary"))
        saved = (f'{c["followers served"] / c["flash hits"]:.0%}' if c["flash hits"] and c["followers served"] is not None
                 else "n/a")
        amplification = written_per_admitted(c, bench_ycsb.chunk_bytes_of(r["table"]))
        lines.append(f'| {r["workload"]}, {case_slug(r["table"], r["cap_iops"])} | {r["label"]} | {r.get("round", 0) + 1} '
                     f'| {r.get("life", "")} | ' + " | ".join(num(c[k], 0) for k in COUNTERS) + f" | {saved} "
                     f'| {"n/a" if amplification is None else f"{amplification:.3f}"} |')
    return lines



def written_per_admitted(c, chunk_bytes):
    """Over a life of the node: all the bytes the cache wrote to its devices (records, summaries, checkpoints)
    per byte of chunk it admitted (chunks appended less those reinserted), or None."""
    if not chunk_bytes or None in (c.get("device bytes written"), c.get("flash writes"), c.get("reinserted")):
        return None
    admitted = c["flash writes"] - c["reinserted"]
    return c["device bytes written"] / (admitted * chunk_bytes) if admitted > 0 else None


def restart_table(setup, rows):
    """A line per restart: how soon the node served its warm throughput again."""
    share = setup.get("restart_share", 0.9)
    lines = [f"Restarts: the node stopped cleanly (SIGTERM) or killed (SIGKILL) under load, the page cache dropped "
             f"(as after a machine restart), started again, and YCSB followed at full rate from the moment the node "
             f"answered CQL; the time to {share:.0%} of the throughput it had warm, before the restart:", "",
             "| case | configuration | restart | round | start-up to CQL s | warm ops/s | time to "
             f"{share:.0%} s | ops/s in the first 30 s | chunks recovered / at the kill |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(restarts(rows), key=lambda r: (r["table"], str(r["cap_iops"]), r["workload"],
                                                   setup["configs"].index(r["config"]) if r["config"] in setup["configs"] else 99,
                                                   r.get("kind", "clean"), r.get("round", 0))):
        if r.get("timeline") and r.get("warm_ops_per_s"):
            reached = (fmt(r["time_to_share_s"], 0) if r.get("time_to_share_s") is not None
                       else f'not in {fmt(r.get("followed_s"), 0)}')
        else:
            reached = "n/a"
        recovered = "n/a"
        if r.get("recovered_entries") is not None:
            recovered = f'{r["recovered_entries"]:,}'
            if r.get("entries_at_kill"):
                recovered += f' / {r["entries_at_kill"]:,} ({r["recovered_entries"] / r["entries_at_kill"]:.0%})'
        lines.append(f'| {r["workload"]}, {case_slug(r["table"], r["cap_iops"])} | {r["label"]} | {r.get("kind", "clean")} '
                     f'| {r.get("round", 0) + 1} | {fmt(r.get("startup_s"), 1)} | {num(r.get("warm_ops_per_s"), 0)} '
                     f'| {reached} | {num(r.get("ops_per_s_first_30s"), 0)} | {recovered} |')
    return lines


def plot_targets(out, setup, rows):
    """Per case and workload with more than one target: the paper's Figures 4-7 panels against the target."""
    plt = benchlib.import_pyplot(log)
    panels = [("ops_per_s", "throughput (ops/s)"), ("read_avg_ms", "read latency, average (ms)"),
              ("read_p99_ms", "read latency, p99 (ms)"), ("cassandra_cpu", "Cassandra CPU (cores)"),
              ("cpu_ms_per_op", "Cassandra CPU per op (ms)"), ("disk_read_mb_s", "root disk reads (MB/s)")]
    written = []
    order = sorted(setup["targets"], key=target_order)
    all_cases = cases(setup, rows)
    for (tbl, cap), workload in itertools.product(all_cases, setup["workloads"]):
        selected = [r for r in rows if (r["table"], r["cap_iops"], r["workload"]) == (tbl, cap, workload)]
        if not selected:
            continue
        suffix = "" if all_cases == [("lz4", None)] else "-" + case_slug(tbl, cap)
        if len(order) == 1:
            # one target rate: a panel of points each would say less than bars side by side
            written.append(plot_bars(plt, setup, selected, workload, case_label(setup, tbl, cap),
                                     os.path.join(out, f"ycsb-{workload}{suffix}.png")))
            continue
        fig, axes = plt.subplots(2, 3, figsize=(15, 8))
        for (key, title), ax in zip(panels, axes.flat):
            for config in setup["configs"]:
                sel = sorted((r for r in selected if r["config"] == config), key=lambda r: target_order(r["target"]))
                if not sel:
                    continue
                # Throughput against the target: evenly spaced targets, "max" (unthrottled) last.
                x = [r["ops_per_s"] if key != "ops_per_s" else order.index(r["target"]) for r in sel]
                y = [r.get(key) if r.get(key) is not None else float("nan") for r in sel]
                style = "-o" if config.startswith("flash") else "--s"
                if any(key + "_range" in r for r in sel):
                    # Several rounds: the median, with the lowest and the highest round as the error bar.
                    low = [v - r.get(key + "_range", (v, v))[0] for r, v in zip(sel, y)]
                    high = [r.get(key + "_range", (v, v))[1] - v for r, v in zip(sel, y)]
                    ax.errorbar(x, y, yerr=[low, high], fmt=style, capsize=3, label=sel[0]["label"])
                else:
                    ax.plot(x, y, style, label=sel[0]["label"])
            ax.set_title(title)
            if key == "ops_per_s":
                ax.set_xticks(range(len(order)), [target_name(t) for t in order])
            ax.set_xlabel("target ops/s" if key == "ops_per_s" else "achieved ops/s")
            ax.grid(alpha=0.3)
        axes.flat[0].legend(fontsize=8)
        fig.suptitle(f"YCSB {workload}, M = {setup['memory_bytes'] / 2**20:.0f} MiB: throughput, latency and CPU by "
                     f"target rate ({case_label(setup, tbl, cap)})")
        written.append(benchlib.save_figure(plt, fig, os.path.join(out, f"ycsb-{workload}{suffix}.png")))
    return written


BAR_PANELS = (("ops_per_s", "throughput (ops/s)"), ("read_avg_ms", "read latency, average (ms)"),
              ("read_p99_ms", "read latency, p99 (ms)"), ("cpu_ms_per_op", "Cassandra CPU per op (ms)"),
              ("chunk_cache_hit_ratio", "flash cache hit ratio"), ("disk_read_mb_s", "root disk reads (MB/s)"))


def plot_bars(plt, setup, selected, workload, case, path):
    """One target rate: a bar per configuration in each panel, the rounds' range as the error bar."""
    configs = [c for c in setup["configs"] if any(r["config"] == c for r in selected)]
    by_config = {r["config"]: r for r in selected}
    labels = [by_config[c]["label"] for c in configs]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for (key, title), ax in zip(BAR_PANELS, axes.flat):
        shown = [c for c in configs if by_config[c].get(key) is not None
                 and (key != "chunk_cache_hit_ratio" or c.startswith("flash"))]
        values = [by_config[c][key] for c in shown]
        low = [v - by_config[c].get(key + "_range", (v, v))[0] for c, v in zip(shown, values)]
        high = [by_config[c].get(key + "_range", (v, v))[1] - v for c, v in zip(shown, values)]
        colors = [f"C{configs.index(c)}" for c in shown]
        positions = [configs.index(c) for c in shown]
        ax.bar(positions, values, yerr=[low, high], capsize=3, color=colors)
        ax.set_xticks(range(len(configs)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    rounds = setup.get("rounds", 1)
    fig.suptitle(f"YCSB {workload}, M = {setup['memory_bytes'] / 2**20:.0f} MiB, target {target_name(setup['targets'][0])}"
                 + (f", medians of {rounds} rounds (bars: their range)" if rounds > 1 else "") + f"\n{case}")
    return benchlib.save_figure(plt, fig, path)


def plot_sweep(out, setup, rows):
    """Per table and workload measured at several caps: the highest target's figures against the cap."""
    caps = [None if c is None else c[0] for c in setup["caps"]]
    if len([c for c in caps if c is not None]) < 2:
        return []
    plt = benchlib.import_pyplot(log)
    top = max(setup["targets"], key=target_order)
    # Uncapped first, then ever tighter caps: the crossover reads left to right.
    order = sorted((c for c in caps if c is not None), key=lambda c: -(c or 10**9))
    names = ["uncapped" if c == 0 else f"{c:,}" for c in order]
    panels = [("ops_per_s", "throughput (ops/s)"), ("read_avg_ms", "read latency, average (ms)"),
              ("read_p99_ms", "read latency, p99 (ms)"), ("cpu_ms_per_op", "Cassandra CPU per op (ms)"),
              ("cap_read_iops", "reads the data device served (IOPS)"), ("chunk_cache_hit_ratio", "flash cache hit ratio")]
    written = []
    for tbl, workload in itertools.product(setup["tables"], setup["workloads"]):
        selected = [r for r in rows if r["table"] == tbl and r["workload"] == workload and r["target"] == top
                    and r["cap_iops"] in order]
        if not selected:
            continue
        fig, axes = plt.subplots(2, 3, figsize=(15, 8))
        for (key, title), ax in zip(panels, axes.flat):
            for config in setup["configs"]:
                sel = {r["cap_iops"]: r for r in selected if r["config"] == config}
                if not sel or (key == "chunk_cache_hit_ratio" and not config.startswith("flash")):
                    continue
                x = [i for i, c in enumerate(order) if c in sel]
                y = [sel[c].get(key) if sel[c].get(key) is not None else float("nan") for c in order if c in sel]
                low = [v - sel[c].get(key + "_range", (v, v))[0] for c, v in zip([c for c in order if c in sel], y)]
                high = [sel[c].get(key + "_range", (v, v))[1] - v for c, v in zip([c for c in order if c in sel], y)]
                ax.errorbar(x, y, yerr=[low, high], fmt="-o" if config.startswith("flash") else "--s", capsize=3,
                            label=label_of(setup, rows, config))
            if key == "cap_read_iops":
                ax.plot(range(len(order)), [c or float("nan") for c in order], ":k", label="the cap")
            ax.set_xticks(range(len(order)), names)
            ax.set_xlabel("data device cap (IOPS; bandwidth scaled alike)")
            ax.set_title(title)
            ax.grid(alpha=0.3)
        axes.flat[0].legend(fontsize=8)
        rounds = setup.get("rounds", 1)
        fig.suptitle(f"YCSB {workload}, {setup['tables'].get(tbl, tbl)}, target {target_name(top)}: measured against "
                     f"the data device's cap" + (f" (medians of {rounds} rounds, bars: their range)" if rounds > 1 else ""))
        written.append(benchlib.save_figure(plt, fig, os.path.join(out, f"ycsb-sweep-{workload}-{tbl}.png")))
    return written


def plot_restarts(out, setup, rows):
    """Per case and workload: throughput after each kind of restart, from CQL-ready, with each
    configuration's share-of-warm line."""
    followed = [r for r in rows if r.get("timeline")]
    if not followed:
        return []
    plt = benchlib.import_pyplot(log)
    share = setup.get("restart_share", 0.9)
    written = []
    for (tbl, cap), workload in itertools.product(cases(setup, followed), setup["workloads"]):
        selected = [r for r in followed if (r["table"], r["cap_iops"], r["workload"]) == (tbl, cap, workload)]
        kinds = [k for k in ("clean", "kill") if any(r.get("kind", "clean") == k for r in selected)]
        if not kinds:
            continue
        fig, axes = plt.subplots(1, len(kinds), figsize=(7 * len(kinds), 4.5), squeeze=False)
        for kind, ax in zip(kinds, axes.flat):
            for i, config in enumerate(setup["configs"]):
                color = f"C{i}"
                for r in (r for r in selected if r["config"] == config and r.get("kind", "clean") == kind):
                    # Windows are [seconds, ops/s, read avg ms]; runs before restarts were followed had no latency.
                    # A gap where the node was down: no line drawn across it.
                    timeline = [w for w in r["timeline"] if w[0] <= 0] + [[0, float("nan")]] + [
                        w for w in r["timeline"] if w[0] > 0]
                    ax.plot([w[0] for w in timeline], [w[1] for w in timeline],
                            "-o" if config.startswith("flash") else "--s", color=color, markersize=3,
                            label=f'{r["label"]}' + (f' (round {r.get("round", 0) + 1})' if setup.get("rounds", 1) > 1 else ""))
                    if r.get("warm_ops_per_s"):
                        ax.axhline(share * r["warm_ops_per_s"], color=color, linestyle=":", linewidth=1)
            ax.axvline(0, color="grey", linewidth=0.8)
            ax.set_xlabel("seconds from the node answering CQL (before 0: warm, then stopped; page cache dropped)")
            ax.set_ylabel("ops/s (YCSB, 5 s windows)")
            ax.set_title(f"after a {'clean stop' if kind == 'clean' else 'SIGKILL under load'}; "
                         f"dotted: {share:.0%} of each one's warm throughput", fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"YCSB {workload}: throughput after restarts ({case_label(setup, tbl, cap)})")
        written.append(benchlib.save_figure(plt, fig, os.path.join(
            out, f"ycsb-restart-{workload}-{case_slug(tbl, cap)}.png")))
    return written


def slowed_rows(rows):
    """Measurements with a device capped after the warm-up and its devices sampled from then on."""
    return [r for r in rows if len(r.get("device_samples") or []) > 1 and r.get("slowed_at_s") is not None]


def device_intervals(row):
    """Per interval between two device samples of a flash-2x-slowed measurement: its end in seconds since
    the cap, the clients' ops/s in it, the capped (last) device's share of the flash reads, each device's
    mean read time in ms (None without reads), the capped device's busy misses (lookups it refused, a
    read's worth of its slots in flight; None from builds before the count), the hot chunks moved and the
    segments given up to make room for them (None from builds before)."""
    out = []
    samples = row["device_samples"]
    for a, b in zip(samples, samples[1:]):
        ops = [w[1] for w in row.get("timeline") or [] if a["t"] < w[0] <= b["t"]]
        reads, millis = [], []
        for da, db in zip(a["devices"], b["devices"]):
            n = sum((db.get(k) or 0) - (da.get(k) or 0) for k in ("hit_reads", "failed_hit_reads"))
            nanos = (db.get("hit_read_nanos") or 0) - (da.get("hit_read_nanos") or 0) \
                if db.get("hit_read_nanos") is not None and da.get("hit_read_nanos") is not None else None
            reads.append(n)
            millis.append(nanos / n / 1e6 if n and nanos is not None else None)
        last_a, last_b = a["devices"][-1], b["devices"][-1]
        busy = (last_b["busy_misses"] - last_a["busy_misses"]
                if last_a.get("busy_misses") is not None and last_b.get("busy_misses") is not None else None)
        moved = (b["hot_chunks_moved"] - a["hot_chunks_moved"]
                 if b.get("hot_chunks_moved") is not None and a.get("hot_chunks_moved") is not None else None)
        room = (b["room_segments"] - a["room_segments"]
                if b.get("room_segments") is not None and a.get("room_segments") is not None else None)
        out.append({"since_cap_s": b["t"] - row["slowed_at_s"],
                    "ops_per_s": statistics.mean(ops) if ops else None,
                    "capped_share": reads[-1] / sum(reads) if reads and sum(reads) else None,
                    "read_ms": millis, "busy": busy, "moved": moved, "room": room})
    return out


def slowed_table(setup, rows):
    """Per flash-2x-slowed measurement: its devices interval by interval after the second was capped."""
    lines = []
    for r in slowed_rows(rows):
        which = f", round {r.get('round', 0) + 1}" if setup.get("rounds", 1) > 1 else ""
        lines += [f"{r['label']}{which}: the second device capped at {r['slowed_cap_iops']:,} IOPS and "
                  f"{r['slowed_cap_mib_s']:g} MiB/s {r['slowed_at_s']:.0f} s into the clients' run "
                  "(flash reads by device, from the devices' beans; the first interval includes the settle "
                  "before the measured window):", "",
                  "| s since the cap | ops/s | capped device's share of flash reads | read ms, first device | "
                  "read ms, capped device | busy misses, capped device | hot chunks moved | "
                  "segments given up for room |",
                  "|---|---|---|---|---|---|---|---|"]
        for i in device_intervals(r):
            ms = i["read_ms"] + [None] * (2 - len(i["read_ms"]))
            lines.append(f"| {i['since_cap_s']:.0f} | {fmt(i['ops_per_s'], 0)} | {fmt(i['capped_share'], 3)} | "
                         f"{fmt(ms[0], 2)} | {fmt(ms[-1], 2)} | {fmt(i['busy'], 0)} | {fmt(i['moved'], 0)} | "
                         f"{fmt(i['room'], 0)} |")
        lines.append("")
    return lines


def plot_slowed(out, setup, rows):
    """The capped device's share of the flash reads and the throughput from the cap on, a line per
    flash-2x-slowed measurement."""
    selected = slowed_rows(rows)
    if not selected:
        return []
    plt = benchlib.import_pyplot(log)
    written = []
    for workload in sorted({r["workload"] for r in selected}):
        fig, (share_ax, ops_ax) = plt.subplots(1, 2, figsize=(13, 4.5))
        for i, config in enumerate(setup["configs"]):
            for r in (r for r in selected if r["config"] == config and r["workload"] == workload):
                label = r["label"] + (f' (round {r.get("round", 0) + 1})' if setup.get("rounds", 1) > 1 else "")
                intervals = device_intervals(r)
                share_ax.plot([x["since_cap_s"] for x in intervals],
                              [float("nan") if x["capped_share"] is None else x["capped_share"] for x in intervals],
                              "-o", color=f"C{i}", markersize=3, label=label)
                timeline = [w for w in r.get("timeline") or [] if w[0] >= r["slowed_at_s"] - 60]
                ops_ax.plot([w[0] - r["slowed_at_s"] for w in timeline], [w[1] for w in timeline], "-",
                            color=f"C{i}", linewidth=1, label=label)
        for ax in (share_ax, ops_ax):
            ax.axvline(0, color="grey", linewidth=0.8)
            ax.set_xlabel("seconds since the second device was capped")
            ax.grid(alpha=0.3)
        share_ax.set_ylabel("capped device's share of flash reads")
        share_ax.set_ylim(0, 1)
        ops_ax.set_ylabel("ops/s (YCSB, 5 s windows)")
        share_ax.legend(fontsize=7)
        fig.suptitle(f"YCSB {workload}: two flash devices, the second capped after the warm-up")
        written.append(benchlib.save_figure(plt, fig, os.path.join(out, f"ycsb-slowed-{workload}.png")))
    return written


RAMP_BIN_S = 15


def ramp_header(second_column, seconds):
    """The two header lines of a ramp table: the restart, a column named second_column, the warm node's,
    then a bin of RAMP_BIN_S for each of the first `seconds` after CQL-ready."""
    return ["| restart | " + second_column + " | warm | "
            + " | ".join(f"{lo}-{lo + RAMP_BIN_S} s" for lo in range(0, seconds, RAMP_BIN_S)) + " |",
            "|---|---|---:|" + "---:|" * (seconds // RAMP_BIN_S)]


def restart_name(r):
    """A followed restart as the ramp tables name it: configuration, kind, and round after the first."""
    return f'{r["label"]}, {r.get("kind", "clean")}' + (f' (round {r.get("round", 0) + 1})' if r.get("round") else "")


def ramp_table(rows):
    """What each followed restart's ramp is made of: per 15 s after CQL-ready, YCSB's ops/s, the node's CPU
    (cores) and CPU a operation, and its data device's reads a second; the warm node's beside them."""
    followed = [r for r in rows if r.get("ramp_resources") and r.get("timeline") and r.get("warm_resources")]
    if not followed:
        return []
    lines = ["What the ramp is made of: per 15 s from the node answering CQL, its throughput, the node's CPU and CPU "
             "an operation, and its data device's reads (each rate weighted by the time it covers in the bin); in the "
             "first column the warm node's: its clients' rate over their last 30 s before the restarts, the node's CPU "
             "and reads over the 15 s right after:", "",
             *ramp_header("", 120)]
    for r in followed:
        warm = r["warm_resources"]
        bins = []
        for lo in range(0, 120, RAMP_BIN_S):
            ops = [w[1] for w in r["timeline"] if lo < w[0] <= lo + RAMP_BIN_S]
            # Each sample is a rate over the interval since the one before (longer where the sampler stalled).
            cpu = benchlib.interval_mean(r["ramp_resources"], "cpu", lo, lo + RAMP_BIN_S)
            reads = benchlib.interval_mean(r["ramp_resources"], "data_read_iops", lo, lo + RAMP_BIN_S)
            if ops and cpu is not None:
                o = sum(ops) / len(ops)
                bins.append((o, cpu, cpu / o * 1000 if o else None, reads))
            else:
                bins.append(None)
        w_ops = r["warm_ops_per_s"]
        name = restart_name(r)
        cells = lambda f, warm_value: [name if f == 0 else "", ("ops/s", "CPU cores", "CPU ms/op", "data reads/s")[f],
                                       warm_value] + ["" if b is None or b[f] is None else (
                                           f"{b[f]:,.0f}" if f in (0, 3) else f"{b[f]:.2f}" if f == 1 else f"{b[f]:.3f}")
                                           for b in bins]
        lines.append("| " + " | ".join(cells(0, f"{w_ops:,.0f}")) + " |")
        lines.append("| " + " | ".join(cells(1, f"{warm['cpu']:.2f}")) + " |")
        lines.append("| " + " | ".join(cells(2, f"{warm['cpu'] / w_ops * 1000:.3f}")) + " |")
        lines.append("| " + " | ".join(cells(3, f"{warm['data_read_iops']:,.0f}")) + " |")
    return lines


RAMP_THREAD_GROUPS = ("jit", "gc", "requests", "io", "flash_cache", "other", "ended")


def thread_rates(sample):
    """A sample's cores by thread group. The samples of f34db66 split Cassandra's shared pool by stage
    ("transport", "read_stage"), whose workers change names as they change stage: there "requests" is
    the node's CPU less the other groups. (Before the per-thread samples, a group's figure lost what its
    threads that ended took; the JIT's threads do not end on a small machine.)"""
    groups = dict(sample["threads"])
    if "requests" not in groups:
        groups.pop("transport", None)
        groups.pop("read_stage", None)
        groups["requests"] = max(0.0, sample["cpu"] - sum(groups.values()))
    return groups


def ramp_threads_table(rows):
    """Where the node's CPU goes in each followed restart's ramp: per 15 s after CQL-ready, the cores each
    group of its threads took (RAMP_THREAD_GROUPS, by name; "ended": threads that ended in the interval),
    the YCSB clients' cores beside; the warm node's first. Only restarts sampled so."""
    followed = [r for r in rows if r.get("ramp_resources") and (r.get("warm_resources") or {}).get("threads")
                and all("threads" in s for s in r["ramp_resources"])]
    if not followed:
        return []
    lines = ["Where the node's CPU goes in the ramp: cores a group of its threads took per 15 s from the node "
             "answering CQL (threads by name: \"requests\" Cassandra's shared pool serving its stages, \"io\" Netty's "
             "event loops, \"ended\" threads that ended in the interval; each rate weighted by the time it covers in the bin), the YCSB "
             "clients' cores last; in the first column the warm node's:", "",
             *ramp_header("threads", 60)]
    for r in followed:
        name = restart_name(r)
        flat = [dict(t=s["t"], clients=s.get("clients_cpu", 0.0), **thread_rates(s)) for s in r["ramp_resources"]]
        warm = dict(thread_rates(r["warm_resources"]), clients=r["warm_resources"].get("clients_cpu"))
        groups = [g for g in RAMP_THREAD_GROUPS if g in warm]  # the groups the run sampled
        for i, group in enumerate(groups + ["clients"]):
            cells = [benchlib.interval_mean(flat, group, lo, lo + RAMP_BIN_S) for lo in range(0, 60, RAMP_BIN_S)]
            lines.append("| " + " | ".join([name if i == 0 else "", group.replace("_", " "),
                                            "" if warm.get(group) is None else f"{warm[group]:.2f}"]
                                           + ["" if c is None else f"{c:.2f}" for c in cells]) + " |")
    return lines


def summary(setup, rows, merged):
    """A few plain sentences per case: what the storage was, and what each configuration did at the
    highest target, against the baseline at M; then each restart's time to its warm share."""
    top = max(setup["targets"], key=target_order)
    share = setup.get("restart_share", 0.9)
    lines = []
    for (tbl, cap), workload in itertools.product(cases(setup, rows), setup["workloads"]):
        at_top = {r["config"]: r for r in merged
                  if (r["table"], r["cap_iops"], r["workload"], r["target"]) == (tbl, cap, workload, top)}
        if not at_top:
            continue
        if cap:
            mib_s = next(c[1] for c in setup["caps"] if c and c[0] == cap)
            storage = (f"Cassandra's data directory was on a loop device of its own, capped at {cap:,} read IOPS and "
                       f"{mib_s:g} MiB/s (and the same for writes) through the node's blkio cgroup; the flash cache's "
                       f"file was on the local disk, uncapped.")
        elif cap == 0:
            storage = "Cassandra's data directory was on a loop device of its own, uncapped."
        else:
            storage = "Cassandra's data and the flash cache's file shared the local disk (the paper's setting)."
        rounds = setup.get("rounds", 1)
        lines.append(f"{workload}, {setup['tables'].get(tbl, tbl)}: {storage} "
                     f"YCSB unthrottled{f', medians of {rounds} rounds' if rounds > 1 else ''}:")
        base = at_top.get("base-c-M")
        for config in setup["configs"]:
            r = at_top.get(config)
            if not r:
                continue
            text = (f"- {r['label']}: {r['ops_per_s']:,.0f} ops/s, reads {r.get('read_avg_ms', 0):.1f} ms on average, "
                    f"{r['cpu_ms_per_op'] or 0:.2f} ms of Cassandra CPU per op")
            if base and r is not base and base["ops_per_s"]:
                text += f" ({r['ops_per_s'] / base['ops_per_s']:.1f}x the baseline at M's throughput)"
            lines.append(text + ".")
        for r in restarts(rows):
            if (r["table"], r["cap_iops"], r["workload"]) != (tbl, cap, workload) or not r.get("warm_ops_per_s"):
                continue
            reached = r.get("time_to_share_s")
            event = "a clean stop" if r.get("kind") == "clean" else "a SIGKILL"
            which = f" (round {r.get('round', 0) + 1})" if rounds > 1 else ""
            lines.append(f"- {r['label']}, after {event}{which}: "
                         + (f"{share:.0%} of its warm throughput {reached:.0f} s after it answered CQL."
                            if reached is not None else f"did not reach {share:.0%} of its warm throughput in the "
                            f"{r.get('followed_s') or 0:.0f} s followed."))
        lines.append("")
    return lines


def report(out):
    setup, rows, failed = load(out)
    merged = aggregate(steady(rows))
    text = report_text(setup, rows, failed, merged)
    open(os.path.join(out, "table.md"), "w").write(text + "\n")
    print(text)
    for path in (plot_targets(out, setup, merged) + plot_sweep(out, setup, merged)
                 + plot_restarts(out, setup, restarts(rows)) + plot_slowed(out, setup, rows)):
        log(f"plot: {path}")
    return 0


def report_text(setup, rows, failed, merged):
    """table.md: the summary, the table, the paired ratios, the cache's figures, the targets and restarts."""
    text = "\n".join(summary(setup, rows, merged)) + "\n" + table(setup, merged)
    ratios = paired_ratios(setup, steady(rows))
    if ratios:
        text += ("\nRound by round (each ratio from two runs minutes apart, so slow drift of the machine cancels "
                 "out):\n\n" + "\n".join(ratios) + "\n")
    figures = cache_figures_table(setup, merged)
    if figures:
        text += "\n" + "\n".join(figures) + "\n"
    checks = target_checks(setup, steady(rows))
    if checks:
        text += ("\nAgainst what the flash cache aims at (medians of the paired rounds' ratios; a drive four times the "
                 "hot set should beat the same memory without it by 12x and twice the memory by 1.5x):\n\n"
                 + "\n".join(checks) + "\n")
    if restarts(rows):
        text += "\n" + "\n".join(restart_table(setup, rows)) + "\n"
        ramp = ramp_table(restarts(rows))
        if ramp:
            text += "\n" + "\n".join(ramp) + "\n"
        threads = ramp_threads_table(restarts(rows))
        if threads:
            text += "\n" + "\n".join(threads) + "\n"
    slowed = slowed_table(setup, rows)
    if slowed:
        text += "\n" + "\n".join(slowed)
    stats = [r for r in rows if r.get("phase") == "cache-stats"]
    if stats:
        text += "\n" + "\n".join(cache_stats_table(stats)) + "\n"
    if failed:
        text += "\nConfigurations that failed:\n\n" + "\n".join(
            f'- {r["label"]} ({r["workload"]}, {case_slug(r["table"], r["cap_iops"])}): {r["error"]}'
            for r in failed) + "\n"
    return text


def self_test():
    failures = []
    check = benchlib.checker(failures)
    setup = {"records": 100, "field_length": 10, "heap": "1G", "memory_bytes": 2**30, "hot_set_bytes": 2**20,
             "chunk_kb": 64, "clients": 2, "threads": 4, "warmup_s": 1, "measure_s": 1, "disk": "loop0",
             "read_ahead_kb": 16, "workloads": ["w"], "targets": [1000, 0], "tables": {"lz4": "LZ4"},
             "caps": [[0, 0], [750, 31.25]], "configs": ["base-c-M", "base-c-2M", "flash-4x"]}

    def row(config, target, ops, read_ms, cpu, cap=750, rnd=0):
        return {"workload": "w", "config": config, "label": config, "target": target, "ops_per_s": ops,
                "read_avg_ms": read_ms, "read_p99_ms": read_ms * 3, "cassandra_cpu": cpu, "round": rnd,
                "cpu_ms_per_op": cpu * 1000 / ops, "disk_read_mb_s": 10, "chunk_cache_hit_ratio": 0.5,
                "table": "lz4", "cap_iops": cap, "cap_read_iops": 700}
    # At the cap: the baseline at M meets 1,000/s; flash 4x has 13x its throughput at max, a third of its latency at
    # 1,000/s; flash 1x 4.8x.
    rows = [row("base-c-M", 1000, 990, 3.0, 1.0), row("base-c-M", 0, 1000, 6.0, 1.0),
            row("base-c-2M", 1000, 1000, 1.5, 0.5), row("base-c-2M", 0, 8000, 3.0, 4.0),
            row("flash-4x", 1000, 1000, 1.0, 0.4), row("flash-4x", 0, 13000, 2.0, 5.2),
            row("flash-1x", 0, 4800, 2.0, 2.0)]
    checks = "\n".join(target_checks(setup, rows))
    check("4x against M met", "flash 4x the hot set, throughput against the same memory without it (baseline at M), "
          "target max: 13.00x (>= 12x): met" in checks, True)
    check("4x against 2M met", "flash 4x the hot set, throughput against twice the memory (baseline at 2M), target "
          "max: 1.62x (>= 1.5x): met" in checks, True)
    check("1x against M not met", "flash 1x the hot set, throughput against the baseline at M, target max: 4.80x "
          "(>= 5x): NOT met" in checks, True)
    check("latency at 1,000 met", "read latency (avg) against the baseline at M, target 1,000: 0.33x (<= 0.5x): met" in checks, True)
    # 0.4 ms per op against 0.5 ms per op.
    check("CPU per op against 2M met", "CPU per op against the baseline at 2M, target max: 0.80x (<= 1x): met" in checks, True)
    rows[0]["ops_per_s"] = 500  # the baseline misses 1,000/s: latency there is not compared
    check("an unmet target rate is not compared", "target 1,000" in "\n".join(target_checks(setup, rows)), False)
    rows[5]["ops_per_s"] = 11600
    check("flash 4x below 1.5x of 2M: not met", "target max: 1.45x (>= 1.5x): NOT met"
          in "\n".join(target_checks(setup, rows)), True)
    # Three rounds: medians and ranges per configuration, ratios paired by round.
    rounds = ([row("base-c-M", 0, ops, 4.0, 1.6, rnd=i) for i, ops in enumerate((2000, 1000, 3000))]
              + [row("flash-4x", 0, ops, 2.0, 1.2, rnd=i) for i, ops in enumerate((1000, 1000, 1500))])
    merged = {r["config"]: r for r in aggregate(rounds)}
    check("median of three rounds", merged["base-c-M"]["ops_per_s"], 2000)
    check("lowest round", merged["base-c-M"]["ops_per_s_range"][0], 1000)
    check("highest round", merged["base-c-M"]["ops_per_s_range"][1], 3000)
    check("range in the cell", spread(merged["base-c-M"], "ops_per_s", 0), "2,000 (1,000-3,000)")
    check("ratios paired by round", "throughput 0.50x, 1.00x, 0.50x (median 0.50x); read avg 0.50x, 0.50x, 0.50x "
          "(median 0.50x)" in paired_ratios(setup, rounds)[0], True)
    check("the check uses the median of the paired ratios",
          "(baseline at M), target max: 0.50x (>= 12x): NOT met [rounds: 0.50x, 1.00x, 0.50x]"
          in "\n".join(target_checks(setup, rounds)), True)
    other_cap = [dict(r, cap_iops=0) for r in rounds]
    check("caps are paired apart", len(paired_ratios(setup, rounds + other_cap)), 2)
    check("old rows: LZ4 on the same disk", (with_defaults({"a": 1})["table"], with_defaults({})["cap_iops"]),
          ("lz4", None))
    zstd = dict(setup, tables={"zstd": "Zstd"}, caps=[None])
    zrows = [dict(row("base-c-M", 0, 1000, 2.0, 1.0, cap=None), table="zstd"),
             dict(row("flash-4x", 0, 1000, 2.0, 0.7, cap=None), table="zstd")]
    check("Zstd CPU target", "CPU per op against the baseline at M, target max: 0.70x (<= 0.8x): met"
          in "\n".join(target_checks(zstd, zrows)), True)
    restart = {"phase": "restart", "kind": "kill", "config": "flash-4x", "label": "x", "workload": "w", "table": "lz4",
               "cap_iops": 750, "round": 0, "startup_s": 9.5, "warm_ops_per_s": 2000.0, "time_to_share_s": 12.4,
               "followed_s": 27.4, "ops_per_s_first_30s": 1900.0, "timeline": [[7.4, 1500.0, 2.0], [12.4, 1950.0, 1.5]],
               "recovered_entries": 900, "entries_at_kill": 1000}
    closing_line = ("hits memory=0 dram=0 flash=400, misses=10, puts=10 (already cached 0, uncacheable 0), flash writes=10 "
               "(10 B), read-aheads=0, paired reads=150 (followers served 100), checkpoints=3 (failed 0, last #3)")
    check("counters from the closing line", counters(closing_line), {"flash hits": 400, "misses": 10, "paired reads": 150,
          "followers served": 100, "flash writes": 10, "checkpoints": 3, "reinserted": None, "device bytes written": None})
    stats_line = cache_stats_table([{"workload": "w", "table": "lz4", "cap_iops": 750, "label": "x", "life": "l",
                                     "summary": closing_line}])[-1]
    check("a quarter of the flash hits cost no read", stats_line.endswith("| 25% | n/a |"), True)
    life_line = ("hits memory=539 dram=0 flash=111610, misses=130385, puts=130385, flash writes=46985 (3154116608 B, "
                 "reinserted 770), device bytes written=3140403200, segments sealed=188")
    check("device bytes per admitted byte over a life", cache_stats_table([{"workload": "w", "table": "lz4", "cap_iops": 750,
          "label": "x", "life": "l", "summary": life_line}])[-1].endswith("| 1.037 |"), True)
    ramped = dict(restart, timeline=[[-5.0, 2000.0, 1.0], [5.0, 500.0, 4.0], [10.0, 1500.0, 2.0], [20.0, 1800.0, 1.5]],
                  warm_resources={"cpu": 1.0, "data_read_iops": 20.0},
                  ramp_resources=[{"t": 1.0, "cpu": 1.5, "data_read_iops": 40.0}, {"t": 14.0, "cpu": 1.5, "data_read_iops": 20.0},
                                  {"t": 16.0, "cpu": 1.2, "data_read_iops": 10.0}])
    ramp = ramp_table([ramped])
    check("ramp: ops/s a bin (the mean of its windows), the warm level first", ramp[4].split(" | ")[2:5],
          ["2,000", "1,000", "1,800"])
    check("ramp: CPU a operation a bin, each rate weighted by its time in it", ramp[6].split(" | ")[2:5],
          ["0.500", "1.480", "0.667"])
    check("ramp: data reads a bin", ramp[7].split(" | ")[2:5], ["20", "21", "10"])
    check("no thread table for restarts sampled without threads", ramp_threads_table([ramped]), [])
    groups = dict.fromkeys(RAMP_THREAD_GROUPS, 0.1)
    threaded = dict(ramped, warm_resources=dict(ramped["warm_resources"], threads=groups, clients_cpu=0.4),
                    ramp_resources=[dict(s, threads=dict(groups, jit=jit), clients_cpu=0.2)
                                    for s, jit in zip(ramped["ramp_resources"], (0.6, 0.3, 0.0))])
    by_thread = ramp_threads_table([threaded])
    check("threads: the JIT's cores a bin, the warm node's first", by_thread[4].split(" | ")[1:5],
          ["jit", "0.10", "0.30", "0.00"])
    check("threads: the clients' row last", by_thread[-1].split(" | ")[1:4], ["clients", "0.40", "0.20"])
    legacy = {"cpu": 1.5, "threads": {"jit": 0.5, "gc": 0.1, "transport": 9.0, "read_stage": 0.0, "flash_cache": 0.1,
                                      "other": 0.2}}
    check("threads: the shared pool split by stage read as the rest of the node's CPU",
          round(thread_rates(legacy)["requests"], 3), 0.6)
    text = "\n".join(summary(setup, rows + [restart], aggregate(rows)))
    check("summary names the cap", "capped at 750 read IOPS and 31.25 MiB/s" in text, True)
    check("summary compares with the baseline at M", "(11.6x the baseline at M's throughput)" in text, True)
    check("summary gives the restart", "after a SIGKILL: 90% of its warm throughput 12 s after it answered CQL." in text,
          True)
    line = restart_table(setup, [restart])[-1]
    check("restart line", line, "| w, lz4-cap750 | x | kill | 1 | 9.5 | 2,000 | 12 | 1,900 | 900 / 1,000 (90%) |")
    check("not reached", restart_table(setup, [dict(restart, time_to_share_s=None)])[-1].split("|")[7].strip(),
          "not in 27")
    slowed = {"config": "flash-2x-slowed", "label": "s", "workload": "w", "slowed_at_s": 300, "slowed_cap_iops": 750,
              "slowed_cap_mib_s": 31.25, "timeline": [[305.0, 900.0], [310.0, 1100.0], [335.0, 1500.0], [340.0, 1700.0]],
              "device_samples": [
                  {"t": 300, "hot_chunks_moved": 10, "devices": [{"hit_reads": 100, "failed_hit_reads": 0, "hit_read_nanos": 10**8},
                                                                 {"hit_reads": 100, "failed_hit_reads": 0, "hit_read_nanos": 10**8}]},
                  {"t": 310, "hot_chunks_moved": 60, "room_segments": 2, "devices": [{"hit_reads": 400, "failed_hit_reads": 0, "hit_read_nanos": 4 * 10**8},
                                                                 {"hit_reads": 199, "failed_hit_reads": 1, "hit_read_nanos": 11 * 10**8,
                                                                  "busy_misses": 2}]},
                  {"t": 340, "hot_chunks_moved": 60, "room_segments": 6, "devices": [{"hit_reads": 1300, "failed_hit_reads": 0, "hit_read_nanos": 13 * 10**8},
                                                                 {"hit_reads": 300, "failed_hit_reads": 0, "hit_read_nanos": 21 * 10**8,
                                                                  "busy_misses": 5}]}]}
    intervals = device_intervals(slowed)
    check("slowed: seconds since the cap", [i["since_cap_s"] for i in intervals], [10, 40])
    check("slowed: ops/s of the windows in each interval", [i["ops_per_s"] for i in intervals], [1000.0, 1600.0])
    check("slowed: the capped device's share, failed reads counted", [round(i["capped_share"], 3) for i in intervals],
          [0.25, 0.1])
    check("slowed: each device's mean read ms", [i["read_ms"] for i in intervals], [[1.0, 10.0], [1.0, 10.0]])
    check("slowed: hot chunks moved in each", [i["moved"] for i in intervals], [50, 0])
    check("slowed: segments given up for room in each (none known before the first count)",
          [i["room"] for i in intervals], [None, 4])
    check("slowed: a table row per interval", slowed_table({}, [slowed])[-2],
          "| 40 | 1600 | 0.100 | 1.00 | 10.00 | 3 | 0 | 4 |")
    check("slowed: no samples, no table", slowed_table({}, [dict(slowed, device_samples=[])]), [])
    evidence_self_test(check, setup, row)
    with tempfile.TemporaryDirectory() as out:
        json.dump(setup, open(os.path.join(out, "setup.json"), "w"))
        with open(os.path.join(out, "raw.jsonl"), "w") as f:
            for r in rows + [dict(r, cap_iops=0) for r in rows]:
                f.write(json.dumps(r) + "\n")
            f.write(json.dumps({"config": "flash-1x", "label": "x", "workload": "w", "error": "oom"}) + "\n")
            f.write(json.dumps(restart) + "\n")
        setup2, good, failed = load(out)
        check("failed rows kept apart", len(failed), 1)
        check("restart rows kept apart", len(restarts(good)), 1)
        text = table(setup2, aggregate(steady(good)))
        check("table rows", sum(1 for l in text.splitlines() if l.startswith("| base") or l.startswith("| flash")), 12)
        check("a section per cap", sum(1 for l in text.splitlines() if l.startswith("### ")), 2)
        check("served reads against the cap", "| 700 (750) |" in text, True)
        one_target = dict(setup2, targets=[0])
        bars, drawn = globals()["plot_bars"], []
        globals()["plot_bars"] = lambda *args: drawn.append(os.path.basename(args[-1])) or bars(*args)
        try:
            plots = plot_targets(out, one_target, aggregate([r for r in steady(good) if r["target"] == 0]))
        finally:
            globals()["plot_bars"] = bars
        check("one target rate: a bar chart per case", drawn, ["ycsb-w-lz4-cap0.png", "ycsb-w-lz4-cap750.png"])
        check("the bar chart is written", all(os.path.getsize(p) > 10000 for p in plots), True)
    return benchlib.finish_self_test(failures)


def evidence_self_test(check, setup, row):
    """The baseline at 4M as a reference, the cold fill time and the flash cache's per-run figures."""
    four = dict(setup, configs=["base-c-M", "base-c-2M", "base-c-4M", "flash-0.5x"], caps=[[750, 31.25]])
    rounds = [dict(row(c, 0, ops, 2.0, 1.0, rnd=i), **extra) for i in range(2) for c, ops, extra in (
        ("base-c-M", 1000, {}), ("base-c-2M", 2000, {}), ("base-c-4M", 4000, {}),
        ("flash-0.5x", 2000, {"fill_s": 90 + 30 * i, "steady_reached": True, "flash_hit_ratio": 0.6 + 0.1 * i,
                              "flash_written_per_admitted_byte": 1.1, "segment_written_per_admitted_byte": 1.0,
                              "reinserted": 10, "reinserted_share": 0.05,
                              "checkpoint_share_of_flash_writes": 0.01, "hot_chunks_moved": 100,
                              "last_device_read_share": 0.25}))]
    ratios = "\n".join(paired_ratios(four, rounds))
    check("flash against the baseline at 4M", "flash-0.5x / base-c-4M, target max, per round: throughput 0.50x, 0.50x"
          in ratios, True)
    check("baselines are not paired with 4M", "base-c-2M / base-c-4M" in ratios, False)
    merged = aggregate(rounds)
    text = table(four, merged)
    flash_line = next(l for l in text.splitlines() if l.startswith("| flash-0.5x"))
    check("cold fill time in the table, median and range", flash_line.endswith("| 105 (90-120) |"), True)
    check("no fill time for a configuration without one", next(
        l for l in text.splitlines() if l.startswith("| base-c-M")).endswith("| n/a |"), True)
    check("the bound came first", fill_cell({"steady_reached": False, "warmup_run_s": 1200}), "not in 1200 s")
    check("no fill column without --warmup steady", "cold fill s" in table(setup, aggregate([row("base-c-M", 0, 1, 1, 1)])),
          False)
    figures = cache_figures_table(four, merged)
    check("a cache-figures line per flash configuration", len(figures), 5)
    check("cache figures: hit ratio median and range, write amplification, reinsertions",
          figures[-1].endswith("| 0.650 (0.600-0.700) | 1.10 (1.10-1.10) | 1.00 (1.00-1.00) | 10 (10-10) "
                           "| 0.050 (0.050-0.050) | 0.0100 (0.0100-0.0100) | 100 (100-100) | 0.250 (0.250-0.250) |"),
          True)
    check("the report carries the cache figures", "| flash B written / admitted B |" in report_text(
        four, rounds, [], merged), True)
    check("no cache figures for stock nodes alone", cache_figures_table(four, [row("base-c-M", 0, 1, 1, 1)]), [])
    check("warm-up rows are not measurements", steady([{"phase": "warm-up"}, {"config": "x"}]), [{"config": "x"}])


if __name__ == "__main__":
    sys.exit(benchlib.main(sys.argv, __doc__, report, self_test))
