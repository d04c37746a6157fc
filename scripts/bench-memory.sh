#!/usr/bin/env bash
# Memory per cached chunk of the engine (issue 15) at 10 M and 100 M chunks of 16 KiB: heap after
# full GCs (index, segment table, reclaim order, admission sketch and doorkeeper sized as the engine sizes
# them by default, victim samples, live counts a segment, file extents, file registry) plus its two segment
# buffers (direct).
# Raw JSON lines and a table go to target/results/memory-<UTC time>/ (or --out DIR). About 3 minutes.
set -euo pipefail
command_line="$0 $*"  # before the options are shifted away, for machine.txt
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/memory-$(date -u +%Y%m%dT%H%M%SZ)"
sizes="10000000 100000000"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --entries) sizes="$2"; shift 2 ;;
    *) echo "unknown option: $1 (use --out DIR, --entries 'N M ...')" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
repo_dir="$repo"
PROG=bench-memory
# die (its messages never had "error: ")
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
ERROR_PREFIX=""
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo/scripts/lib/snapshot-build.sh"
build_module_snapshot "$private" plugin/bench bench-memory
cp="$(cat "$private/classpath")"
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $command_line"; git rev-parse HEAD; } > "$out/machine.txt"
for entries in $sizes; do
  echo "== engine memory at $entries chunks" >&2
  java -Xmx6g -cp "$cp" io.flashchunk.bench.CacheBench compact-heap --entries "$entries" 2>>"$out/bench.log" | tee -a "$out/raw.jsonl" >/dev/null
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "raw.jsonl")) if l.strip()]
lines = ["| chunks | segments | heap bytes a chunk | sketch counters a row per chunk | of which admission sketch and doorkeeper "
         "| segment buffers (direct) a chunk | total a chunk | target |",
         "|---:|---:|---:|---:|---:|---:|---:|---|"]
for r in rows:
    total = r["bytes_per_chunk"]
    lines.append(f"| {r['entries']:,} | {r['segments']:,} | {r['heap_per_chunk']:.2f} | {r.get('sketch_counters', '')} | "
                 f"{r.get('sketch_bytes', 0) / r['entries']:.2f} | "
                 f"{r['direct_bytes'] / r['entries']:.2f} | {total:.2f} | {'met' if total <= 16 else 'NOT met'} (at most 16) |")
table = "\n".join(lines)
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("# Compact engine: memory per cached chunk\n\n" + table + "\n")
print(table)
PY
echo "raw results and table in $out" >&2
