#!/usr/bin/env python3
"""Table and plot for scripts/bench-device.sh.

Usage: bench_device_report.py OUT_DIR      reads OUT_DIR/raw.jsonl, writes OUT_DIR/table.md and
                                           OUT_DIR/device-iops.png, prints the table
       bench_device_report.py --self-test  checks the arithmetic on synthetic data

raw.jsonl holds one JSON object per run: DeviceBench's line (tool "flashchunk") or the same shape
made from fio's JSON (tool "fio", label "fio"), plus "repeat" (1-based) added by bench-device.sh.

For each (bs, qd, backend) the table shows the median over repeats of IOPS, MB/s, p99 latency and
CPU per I/O, and the median over repeats of IOPS(backend) / IOPS(fio) where both ran in the same
repeat. On a noisy machine those side-by-side ratios are steadier than ratios of medians.
"""

import datetime

import benchlib
import json
import os
import statistics
import sys
import tempfile
from collections import defaultdict

BACKEND_ORDER = ["fio", "flashchunk-libaio", "flashchunk-threadpool", "flashchunk-capi"]
TARGET_BACKEND = "flashchunk-libaio"
TARGET_QD = 32
TARGET_RATIO = 0.90
HEADER = "| bs | qd | backend | IOPS | MB/s | p99 µs | CPU µs/IO | IOPS vs fio |"
SEPARATOR = "|---:|---:|---|---:|---:|---:|---:|---:|"


log = benchlib.logger("bench_device_report")


def backend_of(row):
    if row.get("tool") == "fio":
        return "fio"
    return row.get("label") or f"flashchunk-{row.get('engine', '?')}"


def backend_key(name):
    return (BACKEND_ORDER.index(name), name) if name in BACKEND_ORDER else (len(BACKEND_ORDER), name)


def load(raw_path):
    """Rows from raw.jsonl; rows without "repeat" are numbered by how often their cell was seen."""
    rows = []
    seen = defaultdict(int)
    with open(raw_path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
                row["backend"] = backend_of(row)
                row["bs"] = int(row["bs"])
                row["qd"] = int(row["qd"])
                row["iops"] = float(row["iops"])
            except (ValueError, KeyError, TypeError) as e:
                log(f"{raw_path}:{number}: skipped, not a result line ({e})")
                continue
            cell = (row["bs"], row["qd"], row["backend"])
            seen[cell] += 1
            row.setdefault("repeat", seen[cell])
            rows.append(row)
    return rows


def summarize(rows):
    """{(bs, qd, backend): summary dict} with medians over repeats and side-by-side ratios."""
    by_cell = defaultdict(list)
    fio_iops = {}  # (repeat, bs, qd) -> fio IOPS in that repeat
    for row in rows:
        by_cell[(row["bs"], row["qd"], row["backend"])].append(row)
        if row["backend"] == "fio":
            fio_iops[(row["repeat"], row["bs"], row["qd"])] = row["iops"]

    def median_of(cell_rows, field):
        values = [float(r[field]) for r in cell_rows if r.get(field) is not None]
        return statistics.median(values) if values else None

    summary = {}
    for (bs, qd, backend), cell_rows in by_cell.items():
        ratios = []
        for r in cell_rows:
            base = fio_iops.get((r["repeat"], bs, qd))
            if base:
                ratios.append(r["iops"] / base)
        iops = [r["iops"] for r in cell_rows]
        summary[(bs, qd, backend)] = {
            "n": len(cell_rows),
            "iops": statistics.median(iops),
            "iops_min": min(iops),
            "iops_max": max(iops),
            "mb_per_s": median_of(cell_rows, "mb_per_s"),
            "p99_us": median_of(cell_rows, "lat_p99_us"),
            "cpu_us_per_io": median_of(cell_rows, "cpu_us_per_io"),
            "ratio": statistics.median(ratios) if ratios else None,
            "ratio_min": min(ratios) if ratios else None,
            "ratio_max": max(ratios) if ratios else None,
            "ratios": len(ratios),
            "errors": sum(int(r.get("errors") or 0) for r in cell_rows),
        }
    return summary


def ordered_keys(summary):
    return sorted(summary, key=lambda k: (k[0], k[1], backend_key(k[2])))


fmt = benchlib.fmt


def table_lines(summary):
    lines = [HEADER, SEPARATOR]
    for key in ordered_keys(summary):
        bs, qd, backend = key
        s = summary[key]
        lines.append(f"| {bs} | {qd} | {backend} | {s['iops']:.0f} | {fmt(s['mb_per_s'], 1)} | "
                     f"{fmt(s['p99_us'], 1)} | {fmt(s['cpu_us_per_io'], 2)} | {fmt(s['ratio'], 2)} |")
    return lines


def target_ratio(summary, bs):
    s = summary.get((bs, TARGET_QD, TARGET_BACKEND))
    return None if s is None else s["ratio"]


def target_line(summary):
    return (f"DirectIoDevice (libaio) at QD {TARGET_QD}: 4 KB {fmt(target_ratio(summary, 4096), 2)} of fio, "
            f"64 KB {fmt(target_ratio(summary, 65536), 2)} of fio (target >= {TARGET_RATIO:.2f})")


def spread_lines(summary):
    """Per cell: IOPS range and per-repeat ratio range over repeats (how noisy the cell was)."""
    lines = ["| bs | qd | backend | runs | IOPS min | IOPS max | IOPS spread | ratio min | ratio max |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for key in ordered_keys(summary):
        bs, qd, backend = key
        s = summary[key]
        spread = (s["iops_max"] - s["iops_min"]) / s["iops"] * 100 if s["iops"] else 0.0
        ratio_min = None if backend == "fio" else s["ratio_min"]
        ratio_max = None if backend == "fio" else s["ratio_max"]
        lines.append(f"| {bs} | {qd} | {backend} | {s['n']} | {s['iops_min']:.0f} | {s['iops_max']:.0f} | "
                     f"{spread:.0f}% | {fmt(ratio_min, 2)} | {fmt(ratio_max, 2)} |")
    return lines


def run_date(out_dir, raw_path):
    return datetime.datetime.fromtimestamp(os.path.getmtime(raw_path), datetime.timezone.utc).strftime("%Y-%m-%d")


def import_pyplot():
    return benchlib.import_pyplot(log)


def plot(summary, png_path, date):
    plt = import_pyplot()
    backends = sorted({k[2] for k in summary}, key=backend_key)
    panels = [(4096, "4 KB"), (65536, "64 KB")]
    colors = {"fio": "#7f7f7f", "flashchunk-libaio": "#1f77b4", "flashchunk-threadpool": "#2ca02c",
              "flashchunk-capi": "#ff7f0e"}
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 5.2))
    width = 0.8 / max(len(backends), 1)
    for ax, (bs, name) in zip(axes, panels):
        qds = sorted({k[1] for k in summary if k[0] == bs})
        top = 0.0
        for i, backend in enumerate(backends):
            xs, heights, labels = [], [], []
            for j, qd in enumerate(qds):
                s = summary.get((bs, qd, backend))
                if s is None:
                    continue
                xs.append(j + (i - (len(backends) - 1) / 2) * width)
                heights.append(s["iops"])
                labels.append(None if backend == "fio" or s["ratio"] is None else f"{s['ratio']:.2f}")
            bars = ax.bar(xs, heights, width, label=backend, color=colors.get(backend))
            for bar, text in zip(bars, labels):
                if text:
                    ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7)
            top = max([top] + heights)
        ax.set_xticks(range(len(qds)))
        ax.set_xticklabels([f"QD {qd}" for qd in qds])
        ax.set_ylim(0, top * 1.12 if top else 1)
        ax.set_ylabel("IOPS (median over repeats)")
        ax.set_title(f"{name} random reads")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"FlashChunk block device vs fio, random reads, O_DIRECT ({date}); "
                 "numbers over bars: IOPS / fio IOPS, per-repeat median")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def report(out_dir):
    raw_path = os.path.join(out_dir, "raw.jsonl")
    if not os.path.isfile(raw_path):
        log(f"{raw_path} not found")
        return 1
    rows = load(raw_path)
    if not rows:
        log(f"{raw_path} has no result lines")
        return 1
    summary = summarize(rows)
    repeats = sorted({r["repeat"] for r in rows})
    table = table_lines(summary)
    target = target_line(summary)
    errors = sum(s["errors"] for s in summary.values())
    notes = [f"Medians over {len(repeats)} repeat(s); \"IOPS vs fio\" is the median of per-repeat ratios "
             "to fio in the same repeat (fio = 1.00)."]
    if errors:
        notes.append(f"Runs reported {errors} I/O errors in total (see raw.jsonl).")
    with open(os.path.join(out_dir, "table.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(table) + "\n\n" + target + "\n\n" + "\n".join(notes) + "\n\n")
        f.write("Spread over repeats (IOPS spread = (max - min) / median):\n\n")
        f.write("\n".join(spread_lines(summary)) + "\n")
    print("\n".join(table))
    print()
    print(target)
    for note in notes:
        print(note)
    png_path = os.path.join(out_dir, "device-iops.png")
    try:
        plot(summary, png_path, run_date(out_dir, raw_path))
        log(f"wrote {os.path.join(out_dir, 'table.md')} and {png_path}")
    except Exception as e:  # the table matters more than the picture
        log(f"no plot: {type(e).__name__}: {e}")
        log(f"wrote {os.path.join(out_dir, 'table.md')}")
    return 0


def self_test():
    """Synthetic raw.jsonl with known medians and per-repeat ratios; exits non-zero on a mismatch."""
    failures = []
    check = benchlib.checker(failures)

    fio = {1: 1000.0, 2: 2000.0, 3: 1500.0}
    # libaio/fio per repeat = 0.9, 0.8, 1.0 -> median 0.9; median IOPS = 1500 (900, 1600, 1500).
    # The ratio of medians would be 1500/1500 = 1.0, so this tells the two apart.
    libaio = {1: 900.0, 2: 1600.0, 3: 1500.0}
    threadpool = {1: 500.0, 2: 1000.0}  # repeat 3 missing: ratios 0.5, 0.5 -> 0.5
    lines = []
    for rep in (1, 2, 3):
        for bs in (4096, 65536):
            for qd in (1, 32):
                scale = 1.0 if bs == 4096 else 0.25
                lines.append({"tool": "fio", "label": "fio", "engine": "libaio", "bs": bs, "qd": qd,
                              "iops": fio[rep] * scale, "mb_per_s": fio[rep] * scale * bs / 1e6,
                              "lat_p99_us": 100.0 * rep, "cpu_us_per_io": 10.0 + rep, "errors": 0,
                              "repeat": rep})
                lines.append({"tool": "flashchunk", "label": "flashchunk-libaio", "engine": "libaio",
                              "bs": bs, "qd": qd, "iops": libaio[rep] * scale,
                              "mb_per_s": libaio[rep] * scale * bs / 1e6, "lat_p99_us": [50.0, 70.0, 60.0][rep - 1],
                              "cpu_us_per_io": [3.0, 1.0, 2.0][rep - 1], "errors": 0, "repeat": rep})
                if rep in threadpool and bs == 4096:
                    lines.append({"tool": "flashchunk", "label": "flashchunk-threadpool", "engine": "threadpool",
                                  "bs": bs, "qd": qd, "iops": threadpool[rep], "mb_per_s": 1.0,
                                  "lat_p99_us": 1.0, "cpu_us_per_io": 1.0, "errors": 0, "repeat": rep})
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "raw.jsonl"), "w") as f:
            f.write("\n".join(json.dumps(line) for line in reversed(lines)) + "\nnot json\n")
        summary = summarize(load(os.path.join(tmp, "raw.jsonl")))
        s = summary[(4096, 32, "flashchunk-libaio")]
        check("libaio median IOPS", s["iops"], 1500.0)
        check("libaio median ratio", s["ratio"], 0.9)
        check("libaio median p99", s["p99_us"], 60.0)
        check("libaio median CPU", s["cpu_us_per_io"], 2.0)
        check("libaio median MB/s", s["mb_per_s"], 1500.0 * 4096 / 1e6)
        check("libaio 64 KB ratio", summary[(65536, 32, "flashchunk-libaio")]["ratio"], 0.9)
        check("libaio 64 KB IOPS", summary[(65536, 32, "flashchunk-libaio")]["iops"], 375.0)
        check("fio median IOPS", summary[(4096, 1, "fio")]["iops"], 1500.0)
        check("fio ratio", summary[(4096, 1, "fio")]["ratio"], 1.0)
        check("threadpool ratio (2 repeats)", summary[(4096, 1, "flashchunk-threadpool")]["ratio"], 0.5)
        check("threadpool median IOPS", summary[(4096, 1, "flashchunk-threadpool")]["iops"], 750.0)
        check("ratio min", s["ratio_min"], 0.8)
        check("ratio max", s["ratio_max"], 1.0)
        table = table_lines(summary)
        want_order = [(4096, 1, "fio"), (4096, 1, "flashchunk-libaio"), (4096, 1, "flashchunk-threadpool"),
                      (4096, 32, "fio")]
        for line, (bs, qd, backend) in zip(table[2:], want_order):
            if not line.startswith(f"| {bs} | {qd} | {backend} |"):
                failures.append(f"table order: {line!r} should be {bs}/{qd}/{backend}")
        if table[3] != "| 4096 | 1 | flashchunk-libaio | 1500 | 6.1 | 60.0 | 2.00 | 0.90 |":
            failures.append(f"table row: {table[3]!r}")
        want_target = ("DirectIoDevice (libaio) at QD 32: 4 KB 0.90 of fio, 64 KB 0.90 of fio "
                       "(target >= 0.90)")
        if target_line(summary) != want_target:
            failures.append(f"target line: {target_line(summary)!r}")
        # The full report (table.md; the plot may fail without matplotlib, which must not fail it).
        status = benchlib.quietly(report, tmp)
        if status != 0 or not os.path.isfile(os.path.join(tmp, "table.md")):
            failures.append("report() did not write table.md")
        # Rows without "repeat" are numbered in order of appearance.
        with open(os.path.join(tmp, "raw.jsonl"), "w") as f:
            for rep in (1, 2):
                f.write(json.dumps({"tool": "fio", "bs": 4096, "qd": 1, "iops": 100.0 * rep}) + "\n")
                f.write(json.dumps({"tool": "flashchunk", "label": "flashchunk-capi", "bs": 4096, "qd": 1,
                                    "iops": [50.0, 400.0][rep - 1]}) + "\n")
        check("ratio without repeat field", summarize(load(os.path.join(tmp, "raw.jsonl")))
              [(4096, 1, "flashchunk-capi")]["ratio"], 1.25)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    sys.exit(benchlib.main(sys.argv, __doc__, report, self_test))
