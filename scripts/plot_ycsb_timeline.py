#!/usr/bin/env python3
"""Throughput over time of one workload's measured runs, from the YCSB clients' status lines.

Usage: plot_ycsb_timeline.py OUT_DIR WORKLOAD   reads OUT_DIR/clients/WORKLOAD-*-target0.txt.xz (the
                                                unthrottled runs scripts/bench-ycsb.sh saved), writes
                                                OUT_DIR/timeline-WORKLOAD.png: each configuration and
                                                round's ops/s every 5 s, the hot set's move marked
       plot_ycsb_timeline.py --self-test       checks the parsing on synthetic output

What a bar of the run's mean hides: how far a moving workload's throughput falls when its hot set
moves, and how soon the cache has the new one.
"""

import glob
import lzma
import os
import re
import sys

import benchlib
import ycsb_output

log = benchlib.logger("plot_ycsb_timeline")
# bench_ycsb.py passes the move to its clients as this property
MOVE = re.compile(r"-p flashchunk\.hotspot\.moveafterseconds=([\d.]+)")
RUN_FILE = re.compile(r"-cap\d+-(.+)-round(\d+)-target0\.txt\.xz$")


def clients(text):
    """Each client's part of a saved clients' file (they are written one after another)."""
    return [part for part in re.split(r"^==== client \d+$", text, flags=re.M) if part.strip()]


def timeline(text):
    """([seconds], [ops/s summed over the clients], move second or None) of one run's clients' file."""
    intervals = ycsb_output.status_intervals(clients(text))
    move = MOVE.search(text)
    return [t for t, *_ in intervals], [ops for _, ops, *_ in intervals], float(move.group(1)) if move else None


def runs(out, workload):
    """{label: text} of the workload's unthrottled runs in OUT_DIR/clients."""
    found = {}
    for path in sorted(glob.glob(os.path.join(out, "clients", f"{workload}-*-target0.txt.xz"))):
        m = RUN_FILE.search(os.path.basename(path))
        if m and os.path.basename(path).startswith(workload + "-"):
            with lzma.open(path, "rt") as f:
                found[f"{m.group(1)}, round {m.group(2)}"] = f.read()
    return found


def report(out, workload):
    found = runs(out, workload)
    if not found:
        log(f"no unthrottled runs of {workload} in {out}/clients")
        return 1
    plt = benchlib.import_pyplot(log)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    move = None
    for label, text in found.items():
        seconds, ops, moved = timeline(text)
        ax.plot(seconds, ops, marker="o", markersize=3, label=label)
        move = moved if moved is not None else move
    if move is not None:
        ax.axvline(move, color="grey", linestyle="--")
        ax.annotate("hot set moves", (move, ax.get_ylim()[1] * 0.95), ha="left", fontsize=9)
    ax.set_xlabel("seconds since the clients started")
    ax.set_ylabel("ops/s (all clients)")
    ax.set_title(f"YCSB {workload}: throughput every 5 s", fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    path = benchlib.save_figure(plt, fig, os.path.join(out, f"timeline-{workload}.png"))
    log(f"plot: {path}")
    return 0


def self_test():
    failures = []
    check = benchlib.checker(failures)
    line = "2026-11-27 21:19:{s:02d}:000 {t} sec: 10 operations; {ops} current ops/sec; [READ: Count=10, Max=9, Min=1, Avg=5.0]"
    client = "Command line: -p flashchunk.hotspot.moveafterseconds=82.5 -p x=1\n" + "\n".join(
        line.format(s=t, t=t, ops=ops) for t, ops in ((5, 100.0), (10, 50.0)))
    text = f"==== client 1\n{client}\n==== client 2\n{client}\n"
    check("two clients", len(clients(text)), 2)
    seconds, ops, move = timeline(text)
    check("seconds", seconds, [5, 10])
    check("ops summed over clients", ops, [200.0, 100.0])
    check("the move", move, 82.5)
    check("no move", timeline(text.replace("moveafterseconds", "other"))[2], None)
    check("run file name", RUN_FILE.search("paper-read100-moving-lz4-cap750-flash-1x-round1-target0.txt.xz").groups(),
          ("flash-1x", "1"))
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 3 or sys.argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(report(sys.argv[1], sys.argv[2]))
