#!/usr/bin/env bash
# The power-cut simulator's long run (CI runs 150 cut points of one seed in PowerCutSimulationTest):
# for each seed, a cache runs a random workload on simulated devices with volatile write caches, and
# the images a power cut could leave at --cuts points of that history are recovered and checked (no
# wrong byte, no checksum error, nothing a loadable checkpoint named lost). One JSON line per seed in
# docs/results/power-cut-<UTC time>/raw.jsonl (or --out DIR) and a summary in summary.md.
# Usage: scripts/sim-power-cut.sh [--seeds 10] [--cuts 1000] [--operations 1500] [--first-seed 1] [--out DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="docs/results/power-cut-$(date -u +%Y%m%dT%H%M%SZ)"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --seeds|--cuts|--operations|--first-seed) args+=("$1" "$2"); shift 2 ;;
    *) echo "unknown option: $1 (use --seeds, --cuts, --operations, --first-seed, --out)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" target/sim
repo_dir="$repo"
die() { echo "sim-power-cut: $*" >&2; exit 1; }
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo/scripts/lib/snapshot-build.sh"
build_test_snapshot "$private" io/flashchunk/cache/PowerCutSimulation.class sim-power-cut
cp="$(cat "$private/classpath")"
{ nproc; uname -r; java -version 2>&1; echo "command: $0 ${args[*]:-}"; git rev-parse HEAD; } > "$out/machine.txt"
status=0
java -ea -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$cp" io.flashchunk.cache.PowerCutSimulation \
  "${args[@]}" --dir target/sim > "$out/raw.jsonl" || status=$?
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "raw.jsonl")) if l.strip()]
total = lambda k: sum(r[k] for r in rows)
lines = ["# Power-cut simulation", "",
         f"{len(rows)} seeds, {total('cuts'):,} cut points, {total('operations'):,} operations; "
         f"{total('checkpoints'):,} checkpoints ({total('failed_checkpoints'):,} failed on purpose), "
         f"{total('evictions'):,} evictions by weight, {total('invalidations'):,} invalidations, "
         f"{total('migrations'):,} migrations.", "",
         f"Recovered images checked: {total('chunks_checked'):,} chunk reads, {total('chunks_served'):,} served; "
         f"{total('named_by_every_loadable_checkpoint'):,} chunks were named by every checkpoint recovery could load "
         f"and had to come back; in {total('full_recoveries'):,} recoveries the spaces' checkpoints together named more than "
         f"the index holds, so recovery kept what fits and those were not counted. "
         f"Problems (wrong bytes, checksum errors, lost chunks, recovered chunks evicted by reads): {total('problems')}.", "",
         "| seed | cuts | served | must come back | checkpoints (failed) | evictions | migrations | problems | s |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    lines.append(f"| {r['seed']} | {r['cuts']:,} | {r['chunks_served']:,} | {r['named_by_every_loadable_checkpoint']:,} | "
                 f"{r['checkpoints']} ({r['failed_checkpoints']}) | {r['evictions']} | {r['migrations']} | {r['problems']} | {r['seconds']:.0f} |")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "raw results and summary in $out" >&2
exit "$status"
