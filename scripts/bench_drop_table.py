#!/usr/bin/env python3
"""What a DROP TABLE gives back on a real node: a Cassandra 5.0.9 node with the flash cache, two YCSB
tables of equal size cached whole (each read twice through a full count), then one dropped with nothing
else read and no checkpoint asked for. The flash cache's JMX bean is sampled until the dropped table's
flash is free: when its chunks left the index (DeadFilesPending 0), and when half and 90% of the flash it
held were free again (UsedBytes), with the checkpoints that took. Run by scripts/bench-drop-table.sh;
samples to OUT/raw.jsonl, a table to OUT/table.md, a plot to OUT/drop-table.png."""
import argparse
import json
import os
import shutil
import sys
import time

import node_control
from node_control import Node, flash_yaml, run, log

KEYSPACES = ("drop_kept", "drop_dropped")
WORKLOAD = os.path.join(node_control.REPO, "ycsb-workloads", "workloads", "paper-read100")
STILL_S = 60  # the run ends once the flash in use has not moved for this long (90% back)
ATTRIBUTES = ("Entries", "UsedBytes", "CapacityBytes", "DeadChunks", "DeadFilesPending", "DeadFileChunksRemoved",
              "MostlyDeadSegmentsDoomed", "SegmentsReclaimed", "Checkpoints", "DeltaCheckpoints",
              "CheckpointBytesWritten", "ChecksumErrors")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--records", type=int, default=6000, help="records of 64 KB in each table (default 6000)")
    p.add_argument("--flash-mib", type=int, default=1024)
    p.add_argument("--heap", default="1G")
    p.add_argument("--timeout", type=int, default=900, help="seconds to wait for the flash to come back")
    p.add_argument("--work")
    p.add_argument("--out", required=True)
    p.add_argument("--report-only", action="store_true", help="the table and plot again from OUT/raw.jsonl")
    args = p.parse_args(argv)
    if not args.report_only and not args.work:
        p.error("--work is required unless --report-only")
    return args


def bean(node, tries=3):
    """The bean's attributes; a read that fails (sjk's JVM under load) is tried again, twice."""
    for attempt in range(tries):
        values = node.flash_bean()
        missing = [a for a in ATTRIBUTES if a not in values]
        if not missing:
            return {a: values[a] for a in ATTRIBUTES}
        log(f"the flash cache's bean lacks {missing} (try {attempt + 1} of {tries})")
    raise RuntimeError(f"the flash cache's bean lacks {missing}: {sorted(values)[:20]}")


def cql(node, statement):
    return run([node_control.NODE_SCRIPT, "cqlsh", node.dir, "--request-timeout", "600", "-e", statement])


def main(argv):
    args = parse_args(argv)
    if args.report_only:
        with open(os.path.join(args.out, "raw.jsonl")) as f:
            samples = [json.loads(line) for line in f if line.strip()]
        report(args, samples[0], samples)
        return
    args.work, args.out = os.path.abspath(args.work), os.path.abspath(args.out)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out, exist_ok=True)
    device = os.path.join(args.work, "flash.img")
    capacity = args.flash_mib << 20
    with open(device, "wb") as f:
        f.truncate(capacity)
    node = Node(os.path.join(args.work, "node"))
    node.init()
    node.configure(flash_yaml(device, capacity))
    raw = open(os.path.join(args.out, "raw.jsonl"), "w")
    try:
        node.start(args.heap)
        for keyspace in KEYSPACES:
            run([node_control.YCSB_SCRIPT, "create-table", "--native-port", str(node.native), "--keyspace", keyspace,
                 "--drop"])
            run([node_control.YCSB_SCRIPT, "load", "--native-port", str(node.native), "-P", WORKLOAD,
                 "-p", f"recordcount={args.records}", "-p", f"cassandra.keyspace={keyspace}", "-threads", "4"])
            node.nodetool("flush", keyspace)
            node.nodetool("compact", keyspace)
        # Each table read whole twice, one after the other: their chunks go to segments of their own.
        for keyspace in KEYSPACES:
            for _ in range(2):
                out = cql(node, f"SELECT count(*) FROM {keyspace}.usertable")
                if str(args.records) not in out:
                    raise RuntimeError(f"{keyspace}: count(*) did not find {args.records} rows:\n{out}")
        node.nodetool("flush")  # nothing more to write; the cache has taken its queue by the first sample
        before = dict(bean(node), t=0.0, records=args.records)
        log(f"before the drop: {before}")
        samples = [before]
        raw.write(json.dumps(before) + "\n")
        dropped_at = time.time()
        cql(node, f"DROP TABLE {KEYSPACES[1]}.usertable")
        log("dropped; sampling the bean")
        while time.time() - dropped_at < args.timeout:
            now = dict(bean(node), t=round(time.time() - dropped_at, 1), records=args.records)
            samples.append(now)
            raw.write(json.dumps(now) + "\n")
            raw.flush()
            freed = before["UsedBytes"] - now["UsedBytes"]
            log(f"{now['t']:.0f} s: {freed / 2**20:,.0f} MiB free again, {now['DeadChunks']:,} dead chunks, "
                f"{now['Checkpoints'] - before['Checkpoints']} checkpoints")
            # Done once 90% is back and nothing more came back for a minute (what stays is others' or mixed).
            settled = [s for s in samples if now["t"] - s["t"] <= STILL_S]
            seen = now["DeadFileChunksRemoved"] > before["DeadFileChunksRemoved"]  # the cache saw the drop
            if (seen and now["DeadFilesPending"] == 0 and freed >= 0.9 * held(before, now)
                    and settled[0]["t"] <= now["t"] - STILL_S + 5 and all(s["UsedBytes"] == now["UsedBytes"] for s in settled)):
                break
    finally:
        raw.close()
        node.stop()
    report(args, before, samples)


def held(before, sample):
    """The flash the dropped table's chunks held: their share of the records (live and dead) on the flash in use."""
    removed = sample["DeadFileChunksRemoved"] - before["DeadFileChunksRemoved"]
    return before["UsedBytes"] * removed / max(1, before["Entries"] + before["DeadChunks"])


def first_time(samples, test):
    for s in samples[1:]:
        if test(s):
            return s["t"]
    return None


def report(args, before, samples):
    after = samples[-1]
    freed = before["UsedBytes"] - after["UsedBytes"]
    held_bytes = held(before, after)
    removed = after["DeadFileChunksRemoved"] - before["DeadFileChunksRemoved"]
    swept = first_time(samples, lambda s: s["DeadFilesPending"] == 0
                       and s["DeadFileChunksRemoved"] - before["DeadFileChunksRemoved"] == removed)
    half = first_time(samples, lambda s: before["UsedBytes"] - s["UsedBytes"] >= 0.5 * held_bytes)
    most = first_time(samples, lambda s: before["UsedBytes"] - s["UsedBytes"] >= 0.9 * held_bytes)
    fmt = lambda t: "not within the run" if t is None else f"{t:.1f} s"
    rows = [
        ("chunks cached before the drop", f"{before['Entries']:,}"),
        ("flash in use before the drop", f"{before['UsedBytes'] / 2**20:,.0f} MiB of {before['CapacityBytes'] / 2**20:,.0f} MiB"),
        ("chunks of dead files taken out of the index after the drop (the dropped table's, and any file's "
         "compacted meanwhile)", f"{removed:,}"),
        ("their chunks out of the index by (the first sample with DeadFilesPending 0; samples ~1.3 s apart)", fmt(swept)),
        ("half the dropped table's flash free", fmt(half)),
        ("90% of it free", fmt(most)),
        ("flash freed by the end", f"{freed / 2**20:,.0f} MiB ({freed / max(1, held_bytes):.0%} of the "
                                   f"{held_bytes / 2**20:,.0f} MiB its chunks' share of the flash in use came to)"),
        ("checkpoints meanwhile (of them deltas)", f"{after['Checkpoints'] - before['Checkpoints']} "
                                                   f"({after['DeltaCheckpoints'] - before['DeltaCheckpoints']}), "
                                                   f"{(after['CheckpointBytesWritten'] - before['CheckpointBytesWritten']) / 2**10:,.0f} KiB"),
        ("segments doomed as mostly dead", f"{after['MostlyDeadSegmentsDoomed'] - before['MostlyDeadSegmentsDoomed']}"),
        ("dead chunks left at the end", f"{after['DeadChunks']:,}"),
        ("checksum errors", f"{after['ChecksumErrors']}"),
    ]
    table = "| after DROP TABLE of half the cached data | |\n|---|---:|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows) + "\n"
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not installed: no plot")
        return
    t = [s["t"] for s in samples]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(t, [s["UsedBytes"] / 2**20 for s in samples], label="flash in use (MiB)")
    record = before["UsedBytes"] / max(1, before["Entries"] + before["DeadChunks"])
    ax.plot(t, [s["DeadChunks"] * record / 2**20 for s in samples],
            label="dead chunks (MiB, at the mean record size)", linestyle="--")
    ax.set_xlabel("seconds after DROP TABLE")
    ax.set_ylabel("MiB")
    records = before.get("records", args.records)
    ax.set_title(f"DROP TABLE of half the cached data ({records:,} records of 64 KB a table)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "drop-table.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv[1:])
