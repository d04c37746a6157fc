#!/usr/bin/env python3
"""Table, target checks and plots from scripts/bench-ycsb.sh results: python3 bench_ycsb_report.py DIR.

DIR holds setup.json and raw.jsonl (one line per configuration, workload and target). Writes
DIR/table.md and DIR/ycsb-<workload>.png (the paper's Figures 4-7: throughput, read latency, CPU and
disk bandwidth against the target throughput), and prints the table.
"""
import itertools
import json
import os
import statistics
import sys
import tempfile

import benchlib

log = benchlib.logger("bench_ycsb_report")
fmt = benchlib.fmt


def target_name(target):
    return "max" if target == 0 else f"{target:,}"


def load(out):
    setup = json.load(open(os.path.join(out, "setup.json")))
    rows = [json.loads(line) for line in open(os.path.join(out, "raw.jsonl")) if line.strip()]
    return setup, [r for r in rows if "error" not in r], [r for r in rows if "error" in r]


def steady(rows):
    return [r for r in rows if r.get("phase", "steady") == "steady"]


def restarts(rows):
    return [r for r in rows if r.get("phase") == "restart"]


def restart_table(rows):
    lines = ["After a clean restart with the page cache dropped (throughput from the first second on):", "",
             "| configuration | workload | seconds | ops/s | read avg ms | ops/s in the first 10 s |",
             "|---|---|---:|---:|---:|---:|"]
    for r in restarts(rows):
        first = [ops for t, ops in r["timeline"] if t <= 10]
        lines.append(f'| {r["label"]} | {r["workload"]} | {r["seconds"]} | {r["ops_per_s"]:,.0f} '
                     f'| {fmt(r.get("read_avg_ms"), 2)} | {fmt(sum(first) / len(first) if first else None, 0)} |')
    return lines


# Numbers of a measurement that several rounds (bench_ycsb.py --repeat) reduce to a median and a range.
MEASURED = ("ops_per_s", "ops_per_s_settled", "read_avg_ms", "read_avg_ms_settled", "read_p99_ms", "update_avg_ms",
            "update_p99_ms", "cassandra_cpu", "cpu_ms_per_op", "disk_read_mb_s", "chunk_cache_hit_ratio", "rss_mib",
            "page_cache_mib", "read_failed", "update_failed")


def aggregate(rows):
    """One row per workload, configuration and target: the median of its rounds, with "<field>_range" = (min, max)."""
    groups = {}
    for r in rows:
        groups.setdefault((r["workload"], r["config"], r["target"]), []).append(r)
    merged = []
    for group in groups.values():
        row = dict(group[0])
        if len(group) > 1:
            for field in MEASURED:
                values = [g[field] for g in group if g.get(field) is not None]
                if values:
                    row[field] = statistics.median(values)
                    row[field + "_range"] = (min(values), max(values))
        merged.append(row)
    return merged


def paired_ratios(setup, rows):
    """Every configuration against the baseline at M (else the first one), and the flash caches against
    the baseline at 2M, at every target, round by round: each ratio comes from two runs minutes apart."""
    references = [c for c in ("base-c-M", "base-c-2M") if c in setup["configs"]] or setup["configs"][:1]
    lines = []
    for workload, target, reference in itertools.product(setup["workloads"], setup["targets"], references):
        per_round = {}
        for r in rows:
            if r["workload"] == workload and r["target"] == target:
                per_round.setdefault(r.get("round", 0), {})[r["config"]] = r
        for config in setup["configs"]:
            if reference == "base-c-2M" and not config.startswith("flash"):
                continue
            pairs = [(p[config], p[reference]) for _, p in sorted(per_round.items())
                     if config != reference and config in p and reference in p]
            if len(pairs) < 2:
                continue
            parts = [f"{what} {ratio_list([f.get(field) for f, _ in pairs], [b.get(field) for _, b in pairs])}"
                     for what, field in (("throughput", "ops_per_s"), ("read avg", "read_avg_ms"),
                                         ("read avg after 10 s", "read_avg_ms_settled"),
                                         ("CPU per op", "cpu_ms_per_op"))]
            lines.append(f"- {workload}, {config} / {reference}, target {target_name(target)}, per round: "
                         + "; ".join(p for p in parts if not p.endswith(" n/a")))
    return lines


def ratio_list(values, references):
    """'1.20x, 0.90x (median 1.05x)' over the rounds where both sides have the value."""
    ratios = [v / r for v, r in zip(values, references) if v is not None and r]
    if not ratios:
        return "n/a"
    return f"{', '.join(f'{x:.2f}x' for x in ratios)} (median {statistics.median(ratios):.2f}x)"


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


def by_key(rows):
    return {(r["workload"], r["config"], r["target"]): r for r in rows}


def comparisons(setup, rows):
    """The issue's two targets, checked at every target rate measured for both sides."""
    index = by_key(rows)
    lines = []
    for workload in setup["workloads"]:
        for flash in ("flash-1x", "flash-2x", "flash-4x", "flash-4x-sync"):
            pairs = [(t, index.get((workload, flash, t)), index.get((workload, "base-c-2M", t))) for t in setup["targets"]]
            pairs = [(t, f, b) for t, f, b in pairs if f and b]
            if not pairs:
                continue
            wins = [f["ops_per_s"] > b["ops_per_s"] and f.get("read_avg_ms", 1e9) < b.get("read_avg_ms", 0)
                    for t, f, b in pairs]
            detail = ", ".join(f'{target_name(t)}: {f["ops_per_s"] / b["ops_per_s"]:.2f}x ops, '
                               f'{f["read_avg_ms"] / b["read_avg_ms"]:.2f}x read avg' for t, f, b in pairs
                               if b["ops_per_s"] and b.get("read_avg_ms"))
            lines.append(f"- {workload}, {flash} at M vs baseline at 2M (more throughput and lower average read "
                         f"latency at every target): {'met' if all(wins) else 'NOT met'} ({detail})")
        top = max(setup["targets"], key=lambda t: 10**12 if t == 0 else t)
        f, b = index.get((workload, "flash-4x", top)), index.get((workload, "base-c-M", top))
        if f and b and b["ops_per_s"] and f.get("cpu_ms_per_op") and b.get("cpu_ms_per_op"):
            more = f["ops_per_s"] / b["ops_per_s"] - 1
            less = 1 - f["cpu_ms_per_op"] / b["cpu_ms_per_op"]
            lines.append(f"- {workload}, flash-4x vs baseline at M, target {target_name(top)} (>= 85% more throughput "
                         f"and >= 25% less CPU per operation): {more * 100:+.0f}% throughput, CPU per op "
                         f"{f['cpu_ms_per_op'] / b['cpu_ms_per_op']:.2f}x the baseline's: "
                         f"{'met' if more >= 0.85 and less >= 0.25 else 'NOT met'}")
    return lines


def table(setup, rows):
    rounds = setup.get("rounds", 1)
    lines = [(f"Medians of {rounds} rounds, run one after the other (A B A B ...); the rounds' range in brackets.\n\n"
              if rounds > 1 else "") + f'Records: {setup["records"]:,} x 10 fields x {setup["field_length"]} B; heap {setup["heap"]}; '
             f'M = {setup["memory_bytes"] / 2**20:.0f} MiB; hot set {setup["hot_set_bytes"] / 2**20:.0f} MiB of '
             f'{setup["chunk_kb"]} KiB chunks; {setup["clients"]} YCSB clients x {setup["threads"]} threads; warm-up '
             f'{setup["warmup_s"]} s, {setup["measure_s"]} s per target; {setup["disk"]} read_ahead_kb '
             f'{setup["read_ahead_kb"]}.', ""]
    for workload in setup["workloads"]:
        lines += [f"### {workload}", "",
                  "| configuration | target | ops/s | read avg ms | read avg ms after 10 s | read p99 ms | update avg ms | update p99 ms "
                  "| Cassandra CPU | CPU ms/op | disk MB/s | chunk cache hit ratio | RSS MiB | page cache MiB | failed ops |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for config in setup["configs"]:
            for r in sorted((r for r in rows if r["workload"] == workload and r["config"] == config),
                            key=lambda r: 10**12 if r["target"] == 0 else r["target"]):
                failed = r.get("read_failed", 0) + r.get("update_failed", 0)
                lines.append(
                    f'| {r["label"]} | {target_name(r["target"])} | {spread(r, "ops_per_s", 0)} | {spread(r, "read_avg_ms", 2)} '
                    f'| {spread(r, "read_avg_ms_settled", 2)} | {fmt(r.get("read_p99_ms"), 1)} '
                    f'| {fmt(r.get("update_avg_ms"), 2)} | {fmt(r.get("update_p99_ms"), 1)} '
                    f'| {r["cassandra_cpu"] * 100:.0f}% | {spread(r, "cpu_ms_per_op", 3)} | {r["disk_read_mb_s"]:.0f} '
                    f'| {fmt(r.get("chunk_cache_hit_ratio"), 2)} | {r.get("rss_mib", "n/a")} | {r.get("page_cache_mib", "n/a")} '
                    f'| {failed} |')
        lines.append("")
    checks = comparisons(setup, rows)
    if checks:
        lines += ["Targets of the issue, as measured here:", ""] + checks + [""]
    return "\n".join(lines)


def plot(out, setup, rows):
    plt = benchlib.import_pyplot(log)
    panels = [("ops_per_s", "throughput (ops/s)"), ("read_avg_ms", "read latency, average (ms)"),
              ("read_p99_ms", "read latency, p99 (ms)"), ("cassandra_cpu", "Cassandra CPU (cores)"),
              ("cpu_ms_per_op", "Cassandra CPU per op (ms)"), ("disk_read_mb_s", "disk reads (MB/s)")]
    written = []
    order = sorted(setup["targets"], key=lambda t: 10**12 if t == 0 else t)
    for workload in setup["workloads"]:
        fig, axes = plt.subplots(2, 3, figsize=(15, 8))
        for (key, title), ax in zip(panels, axes.flat):
            for config in setup["configs"]:
                sel = sorted((r for r in rows if r["workload"] == workload and r["config"] == config),
                             key=lambda r: 10**12 if r["target"] == 0 else r["target"])
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
        fig.suptitle(f"YCSB {workload}: flash chunk cache vs Cassandra's own cache (M = "
                     f"{setup['memory_bytes'] / 2**20:.0f} MiB)")
        fig.tight_layout()
        path = os.path.join(out, f"ycsb-{workload}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_restarts(out, rows):
    if not rows:
        return []
    plt = benchlib.import_pyplot(log)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in rows:
        # The last report of a run can cover a partial window: only whole ones up to the run's length.
        r = dict(r, timeline=[(t, ops) for t, ops in r["timeline"] if t <= r["seconds"]])
        ax.plot([t for t, _ in r["timeline"]], [ops for _, ops in r["timeline"]],
                "-o" if r["config"].startswith("flash") else "--s", label=f'{r["label"]} ({r["workload"]})')
    ax.set_xlabel("seconds after the restart (page cache dropped)")
    ax.set_ylabel("ops/s (YCSB status, 5 s windows)")
    ax.set_title("Throughput right after a restart: the flash cache comes back warm")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "ycsb-restart.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def report(out):
    setup, rows, failed = load(out)
    text = table(setup, aggregate(steady(rows)))
    ratios = paired_ratios(setup, steady(rows))
    if ratios:
        text += ("\nRound by round (each ratio from two runs minutes apart, so slow drift of the machine cancels "
                 "out):\n\n" + "\n".join(ratios) + "\n")
    if restarts(rows):
        text += "\n" + "\n".join(restart_table(rows)) + "\n"
    if failed:
        text += "\nConfigurations that failed:\n\n" + "\n".join(
            f'- {r["label"]} ({r["workload"]}): {r["error"]}' for r in failed) + "\n"
    open(os.path.join(out, "table.md"), "w").write(text + "\n")
    print(text)
    for path in plot(out, setup, aggregate(steady(rows))) + plot_restarts(out, restarts(rows)):
        log(f"plot: {path}")
    return 0


def self_test():
    failures = []
    check = benchlib.checker(failures)
    setup = {"records": 100, "field_length": 10, "heap": "1G", "memory_bytes": 2**30, "hot_set_bytes": 2**20,
             "chunk_kb": 64, "clients": 2, "threads": 4, "warmup_s": 1, "measure_s": 1, "disk": "vda",
             "read_ahead_kb": 16, "workloads": ["w"], "targets": [1000, 0],
             "configs": ["base-c-M", "base-c-2M", "flash-4x"]}

    def row(config, target, ops, read_ms, cpu):
        return {"workload": "w", "config": config, "label": config, "target": target, "ops_per_s": ops,
                "read_avg_ms": read_ms, "read_p99_ms": read_ms * 3, "cassandra_cpu": cpu,
                "cpu_ms_per_op": cpu * 1000 / ops, "disk_read_mb_s": 10, "chunk_cache_hit_ratio": 0.5}
    rows = [row("base-c-M", 1000, 1000, 2.0, 1.0), row("base-c-M", 0, 2000, 4.0, 1.6),
            row("base-c-2M", 1000, 1000, 1.5, 1.0), row("base-c-2M", 0, 3000, 3.0, 1.7),
            row("flash-4x", 1000, 1001, 1.0, 0.5), row("flash-4x", 0, 4000, 2.0, 1.2)]
    lines = comparisons(setup, rows)
    check("two comparisons", len(lines), 2)
    check("flash beats 2M everywhere", int(lines[0].split(": ")[1].startswith("met")), 1)
    # 4000 / 2000 = +100% throughput; CPU/op 0.3 ms vs 0.8 ms = 62% less.
    check("headline met", int(lines[1].endswith(": met")), 1)
    rows[-1]["ops_per_s"] = 2900
    check("flash slower than 2M at max: not met", int("NOT met" in comparisons(setup, rows)[0]), 1)
    # Three rounds: medians and ranges per configuration, ratios paired by round.
    rounds = ([dict(row("base-c-M", 0, ops, 4.0, 1.6), round=i) for i, ops in enumerate((2000, 1000, 3000))]
              + [dict(row("flash-4x", 0, ops, 2.0, 1.2), round=i) for i, ops in enumerate((1000, 1000, 1500))])
    merged = {r["config"]: r for r in aggregate(rounds)}
    check("median of three rounds", merged["base-c-M"]["ops_per_s"], 2000)
    check("lowest round", merged["base-c-M"]["ops_per_s_range"][0], 1000)
    check("highest round", merged["base-c-M"]["ops_per_s_range"][1], 3000)
    check("flash median", merged["flash-4x"]["ops_per_s"], 1000)
    check("range in the cell", int(spread(merged["base-c-M"], "ops_per_s", 0) == "2,000 (1,000-3,000)"), 1)
    check("ratios paired by round",
          int("throughput 0.50x, 1.00x, 0.50x (median 0.50x); read avg 0.50x, 0.50x, 0.50x (median 0.50x)"
              in paired_ratios(setup, rounds)[0]), 1)
    with_2m = rounds + [dict(r, config="base-c-2M") for r in rounds if r["config"] == "base-c-M"]
    check("flash against 2M as well", sum("flash-4x / base-c-2M" in l for l in paired_ratios(setup, with_2m)), 1)
    # Without the baseline, the first configuration is the reference.
    ab = dict(setup, configs=["flash-4x", "flash-4x-sync"])
    ab_rows = [dict(r, config="flash-4x-sync" if r["config"] == "base-c-M" else r["config"]) for r in rounds]
    check("first configuration as the reference",
          int("flash-4x-sync / flash-4x, target max, per round: throughput 2.00x, 1.00x, 2.00x"
              in paired_ratios(ab, ab_rows)[0]), 1)
    with tempfile.TemporaryDirectory() as out:
        json.dump(setup, open(os.path.join(out, "setup.json"), "w"))
        with open(os.path.join(out, "raw.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
            f.write(json.dumps({"config": "flash-1x", "label": "x", "workload": "w", "error": "oom"}) + "\n")
            f.write(json.dumps({"phase": "restart", "config": "flash-4x", "label": "x", "workload": "w", "seconds": 10,
                                "ops_per_s": 100.0, "read_avg_ms": 1.0, "timeline": [[5, 90.0], [10, 110.0]]}) + "\n")
        setup2, good, failed = load(out)
        check("failed rows kept apart", len(failed), 1)
        check("restart rows kept apart", len(restarts(good)), 1)
        check("first 10 s average", float(restart_table(good)[-1].split("|")[-2]), 100.0)
        good = steady(good)
        text = table(setup, good)
        check("table rows", sum(1 for l in text.splitlines() if l.startswith("| base") or l.startswith("| flash")), 6)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    sys.exit(benchlib.main(sys.argv, __doc__, report, self_test))
