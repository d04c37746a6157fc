#!/usr/bin/env bash
# The main job: builds everything, starts a Cassandra 5.0.9 node (from Maven Central) whose data sits on
# capped storage (a loop device limited, through a blkio cgroup, to a cloud volume's baseline rate scaled to
# this machine), loads it with YCSB, runs the paper's hotspot workload (100% read, 30% of the records get
# 80% of the reads) inside a cgroup memory limit M, and prints what happened: stock Cassandra at M and 2M
# against the flash chunk cache at M (its file on the local disk, uncapped), warm and then after a clean
# restart, each warmed up until steady. scripts/bench-ycsb.sh --quick; about 40 minutes here. Needs root.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
"$repo/scripts/install-deps.sh"
out="$repo/target/demo-$(date -u +%Y%m%dT%H%M%SZ)"
echo "== YCSB against Cassandra 5.0.9 with its data on capped storage: stock Cassandra at M and 2M, the flash"
echo "   chunk cache at M, each warm and after a clean restart (results: $out)"
"$repo/scripts/bench-ycsb.sh" --quick --out "$out" "$@"
echo
echo "== done: the table above is $out/table.md; plots:"
ls "$out"/*.png | sed 's/^/   /'
echo "   raw results: $out/raw.jsonl"
echo "   (the cap sweep, the paper's same-disk regime, Zstd tables and the paper's memory proportions:"
echo "    docs/ycsb-benchmark.md)"
