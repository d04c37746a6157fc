#!/usr/bin/env python3
"""Plot and target check for scripts/sim-cache.sh.

Usage: sim_cache_report.py OUT_DIR      reads OUT_DIR/raw.jsonl (the simulator's lines: trace, design,
                                        cache_fraction, hit_ratio, written_per_admitted, ...), prints each
                                        design's worst shortfall against the reference's and writes
                                        OUT_DIR/hit-ratios.png
       sim_cache_report.py --self-test  checks the arithmetic on synthetic data

Issue 15's targets: a hit ratio at most 1 point below the per-chunk W-TinyLFU reference at every trace and
flash size, and at most 1.05 flash bytes written per admitted byte on the hotspot trace.
"""

import json
import os
import sys
import tempfile
from collections import defaultdict

import benchlib

REFERENCE = "chunk W-TinyLFU (per-chunk reference)"
# The reference's name in results written before 2026-11-27.
REFERENCE_BEFORE = "chunk W-TinyLFU (today)"
HIT_POINTS_BELOW = 1.0
WRITTEN_PER_ADMITTED = 1.05
HOTSPOT = "hotspot 30/80"

log = benchlib.logger("sim_cache_report")


def load(out):
    with open(os.path.join(out, "raw.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for r in rows:
        if r["design"] == REFERENCE_BEFORE:
            r["design"] = REFERENCE
    return rows


def verdicts(rows):
    """{design: (worst points below the reference, where, written per admitted on hotspot (max), meets)} for each
    design but the reference; meets is None when the run had no hotspot trace."""
    reference = {(r["trace"], r["cache_fraction"]): r["hit_ratio"] for r in rows if r["design"] == REFERENCE}
    worst = {}
    written = defaultdict(float)
    for r in rows:
        if r["design"] == REFERENCE or (r["trace"], r["cache_fraction"]) not in reference:
            continue
        below = 100 * (reference[(r["trace"], r["cache_fraction"])] - r["hit_ratio"])
        where = f'{r["trace"]}, flash {100 * r["cache_fraction"]:.0f}%'
        if r["design"] not in worst or below > worst[r["design"]][0]:
            worst[r["design"]] = (below, where)
        if r["trace"] == HOTSPOT:
            written[r["design"]] = max(written[r["design"]], r["written_per_admitted"])
    # Without the hotspot trace the write target cannot be judged: None, not a pass.
    return {d: (below, where, written.get(d),
                None if d not in written else below <= HIT_POINTS_BELOW and written[d] <= WRITTEN_PER_ADMITTED)
            for d, (below, where) in worst.items()}


def verdict_lines(rows):
    lines = ["| design | worst hit ratio vs reference (points below) | where | hotspot: flash written per admitted byte "
             "(max) | meets both targets |", "|---|---:|---|---:|---|"]
    for design, (below, where, written, meets) in verdicts(rows).items():
        verdict = "n/a (no hotspot trace)" if meets is None else "yes" if meets else "no"
        lines.append(f"| {design} | {below:.2f} | {where} | {benchlib.fmt(written, 3)} | {verdict} |")
    return lines


def plot(rows, path):
    plt = benchlib.import_pyplot(log)
    traces = list(dict.fromkeys(r["trace"] for r in rows))
    fig, axes = plt.subplots(1, len(traces), figsize=(5.5 * len(traces), 4.5), squeeze=False)
    for ax, trace in zip(axes[0], traces):
        by_design = defaultdict(list)
        for r in rows:
            if r["trace"] == trace:
                by_design[r["design"]].append((100 * r["cache_fraction"], 100 * r["hit_ratio"]))
        for design, points in by_design.items():
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                    linewidth=2.5 if design == REFERENCE else 1.2, color="black" if design == REFERENCE else None,
                    label=design)
        ax.set_title(trace)
        ax.set_xlabel("flash, % of the chunks the trace reads")
        ax.set_ylabel("hit ratio, %")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Hit ratio at equal flash bytes (after the warm-up)")
    return benchlib.save_figure(plt, fig, path)


def report(out):
    rows = load(out)
    lines = verdict_lines(rows)
    with open(os.path.join(out, "summary.md"), "a") as f:
        f.write("\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        log(f"wrote {plot(rows, os.path.join(out, 'hit-ratios.png'))}")
    except Exception as e:  # the numbers stand without the picture
        log(f"no plot: {e}")
    return 0


def self_test():
    failures = []
    check = benchlib.checker(failures)
    rows = [
        {"trace": HOTSPOT, "cache_fraction": 0.2, "design": REFERENCE, "hit_ratio": 0.50, "written_per_admitted": 1.0},
        {"trace": HOTSPOT, "cache_fraction": 0.2, "design": "a", "hit_ratio": 0.495, "written_per_admitted": 1.02},
        {"trace": HOTSPOT, "cache_fraction": 0.2, "design": "b", "hit_ratio": 0.40, "written_per_admitted": 1.0},
        {"trace": "zipfian 0.99", "cache_fraction": 0.2, "design": REFERENCE, "hit_ratio": 0.80,
         "written_per_admitted": 1.0},
        {"trace": "zipfian 0.99", "cache_fraction": 0.2, "design": "a", "hit_ratio": 0.78, "written_per_admitted": 1.5},
        {"trace": "zipfian 0.99", "cache_fraction": 0.2, "design": "b", "hit_ratio": 0.81, "written_per_admitted": 1.0},
        {"trace": HOTSPOT, "cache_fraction": 0.4, "design": REFERENCE, "hit_ratio": 0.70, "written_per_admitted": 1.0},
        {"trace": HOTSPOT, "cache_fraction": 0.4, "design": "b", "hit_ratio": 0.70, "written_per_admitted": 1.2},
    ]
    v = verdicts(rows)
    check("a: worst points below", round(v["a"][0], 6), 2.0)
    check("a: where", v["a"][1], "zipfian 0.99, flash 20%")
    check("a: written on hotspot only", v["a"][2], 1.02)
    check("a: misses the hit target", v["a"][3], False)
    check("b: worst", round(v["b"][0], 6), 10.0)
    check("b: written, the largest on hotspot", v["b"][2], 1.2)
    check("the reference is not judged", REFERENCE in v, False)
    zipf_only = verdicts([r for r in rows if r["trace"] != HOTSPOT])
    check("without the hotspot trace the write target is not judged", zipf_only["a"][3], None)
    check("c meets both", verdicts(rows[:2] + [dict(rows[1], design="c", hit_ratio=0.492, written_per_admitted=1.05),
                                               dict(rows[0])])["c"][3], True)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "raw.jsonl"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        benchlib.quietly(report, tmp)
        with open(os.path.join(tmp, "summary.md")) as f:
            text = f.read()
        check("summary row", "| a | 2.00 | zipfian 0.99, flash 20% | 1.020 | no |" in text, True)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    sys.exit(benchlib.main(sys.argv, __doc__, report, self_test))
