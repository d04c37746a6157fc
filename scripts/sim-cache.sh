#!/usr/bin/env bash
# The cache simulator (the plugin/sim module): replays chunk-read traces against the deleted per-chunk
# engine's W-TinyLFU (the per-chunk reference) and the segment-structured designs, the
# engine's among them, at equal flash bytes, and reports each one's hit ratio and the flash
# bytes it writes. Traces: YCSB's hotspot 30/80 and zipfian 0.99 generators over --chunks chunks, a
# hotspot mix with scans, and any recording of a real node's chunk reads (--recorded FILE, made by a
# node started with -Dflashchunk.record_reads=FILE; scripts/bench-ycsb.sh --record-reads DIR does it).
# Writes raw.jsonl (one line per trace, flash size and design), summary.md and hit-ratios.png into
# target/results/sim-cache-<UTC time>/ (or --out DIR).
# Usage: scripts/sim-cache.sh [--chunks 4000000] [--reads 20000000] [--chunk-bytes 16384]
#          [--fractions 0.05,0.1,0.2,0.4 | --flash-bytes N,...] [--segment-mib 16] [--warmup 0.25] [--traces hotspot,zipfian,scans,moving|none]
#          [--recorded FILE]... [--designs SUBSTRING,...] [--heap 6g] [--out DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/sim-cache-$(date -u +%Y%m%dT%H%M%SZ)"
heap="6g"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --heap) heap="$2"; shift 2 ;;
    --recorded) args+=("$1" "$(realpath "$2")"); shift 2 ;;
    --chunks|--reads|--chunk-bytes|--fractions|--flash-bytes|--segment-mib|--warmup|--traces|--designs) args+=("$1" "$2"); shift 2 ;;
    *) echo "sim-cache: unknown option: $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
repo_dir="$repo"
PROG=sim-cache
# die (its messages never had "error: ")
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
ERROR_PREFIX=""
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo/scripts/lib/snapshot-build.sh"
build_module_snapshot "$private" plugin/sim sim-cache
cp="$(cat "$private/classpath")"
{ nproc; uname -r; java -version 2>&1; echo "command: $0 ${args[*]:-}"; git rev-parse HEAD; } > "$out/machine.txt"
java -Xmx"$heap" -cp "$cp" io.flashchunk.sim.CacheSimulator "${args[@]}" --out "$out" > "$out/summary.md"
python3 scripts/sim_cache_report.py "$out"
echo "raw results, summary.md and hit-ratios.png in $out" >&2
