#!/usr/bin/env python3
"""What the flash cache adds to a node's start: a Cassandra 5.0.9 node started again and again, stock and
with the flash cache (this checkout's jar, and optionally other jars), in paired rounds (each round starts
every configuration once, in a rotating order); the time until CQL answers, as cassandra-node.sh
measures it. Run by scripts/bench-startup.sh; raw results to OUT/raw.jsonl, a table to OUT/table.md."""
import argparse
import json
import os
import shutil
import statistics
import sys

import node_control
from node_control import Node, flash_yaml


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--heap", default="512M")
    p.add_argument("--flash-mib", type=int, default=256)
    p.add_argument("--jar", action="append", default=[], metavar="NAME=PATH",
                   help="a flash cache configuration with this agent jar (repeatable)")
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    args.work, args.out = os.path.abspath(args.work), os.path.abspath(args.out)
    configs = [("stock", None)] + [tuple(j.split("=", 1)) for j in args.jar]
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out, exist_ok=True)
    device = os.path.join(args.work, "flash.img")
    capacity = args.flash_mib << 20
    node = Node(os.path.join(args.work, "node"))
    node.init()
    times = {name: [] for name, _ in configs}
    with open(os.path.join(args.out, "raw.jsonl"), "w") as raw:
        for rnd in range(args.rounds):
            order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]
            for name, jar in order:
                if jar:
                    node_control.AGENT_JAR = os.path.abspath(jar)
                    with open(device, "wb") as f:
                        f.truncate(capacity)
                node.configure(flash_yaml(device, capacity) if jar else None)
                seconds = node.start(args.heap)
                node.stop()
                times[name].append(seconds)
                raw.write(json.dumps({"round": rnd, "config": name, "start_s": seconds}) + "\n")
                raw.flush()
    stock = statistics.median(times["stock"])
    lines = ["| configuration | starts | median s | min s | max s | median vs stock |", "|---|---:|---:|---:|---:|---:|"]
    for name, values in times.items():
        m = statistics.median(values)
        lines.append(f"| {name} | {len(values)} | {m:.1f} | {min(values):.1f} | {max(values):.1f} | {m - stock:+.1f} s |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
