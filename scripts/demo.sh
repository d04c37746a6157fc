#!/usr/bin/env bash
# The main job: builds everything, starts a Cassandra 5.0.9 node (from Maven Central) with the flash
# chunk cache and without it, loads it with YCSB, runs the paper's hotspot workload (100% read, 30% of
# the records get 80% of the reads) inside a cgroup memory limit, and prints what happened: stock
# Cassandra at memory M and 2M against the flash cache at M. A short version of
# scripts/bench-ycsb.sh (its --quick mode; about 25 minutes here). Needs root.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
"$repo/scripts/install-deps.sh"
out="$repo/target/demo-$(date -u +%Y%m%dT%H%M%SZ)"
echo "== YCSB against Cassandra 5.0.9: stock chunk cache at M and 2M, flash chunk cache at M (results: $out)"
"$repo/scripts/bench-ycsb.sh" --quick --out "$out" "$@"
echo
echo "== done: table $out/table.md, plot $out/ycsb-paper-read100.png, raw results $out/raw.jsonl"
echo "   (the full comparison: scripts/bench-ycsb.sh; results in docs/ycsb-benchmark.md)"
