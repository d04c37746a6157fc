#!/usr/bin/env bash
# The power-cut simulator's long run (CI runs a few hundred cut points in PowerCutTest): for
# each seed, two caches run one after the other on two simulated devices with volatile write caches
# (a format of blank devices, the first cache's reads, appends, rewrites of chunks with new bytes,
# reclaims with reinsertion, checkpoints, some with the writer appending after the index was copied,
# flushes; then a format over its records and a second cache whose chunks all have other bytes), and
# the images a power cut could leave at --cuts points of that history (some in and around each
# format) are started by a real engine and checked: no stale or wrong byte, no entry pointing at
# another record, no chunk restored twice, nothing the durable checkpoint named lost, and after
# rewrites appended over the older records, every chunk its newest bytes or a miss. One JSON line per seed in
# target/results/power-cut-<UTC time>/raw.jsonl (or --out DIR) and a summary in summary.md.
# --late-us N: each device write completes up to N microseconds late (other interleavings of device
# completions and the engine's steps; 3000 found what prompt completions hid).
# Usage: scripts/sim-power-cut.sh [--seeds 10] [--cuts 1000] [--operations 4000] [--first-seed 1] [--late-us 0] [--out DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/power-cut-$(date -u +%Y%m%dT%H%M%SZ)"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --seeds|--cuts|--operations|--first-seed|--late-us) args+=("$1" "$2"); shift 2 ;;
    *) echo "unknown option: $1 (use --seeds, --cuts, --operations, --first-seed, --late-us, --out)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
repo_dir="$repo"
PROG=sim-power-cut
# die (its messages never had "error: ")
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
ERROR_PREFIX=""
private="$(mktemp -d)"
trap 'rm -rf "$private"' EXIT
# shellcheck source=lib/snapshot-build.sh
source "$repo/scripts/lib/snapshot-build.sh"
build_test_snapshot "$private" io/flashchunk/cache/engine/PowerCutSimulation.class sim-power-cut
cp="$(cat "$private/classpath")"
{ nproc; uname -r; java -version 2>&1; echo "command: $0 ${args[*]:-}"; git rev-parse HEAD; } > "$out/machine.txt"
status=0
java -ea -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$cp" io.flashchunk.cache.engine.PowerCutSimulation \
  "${args[@]}" > "$out/raw.jsonl" || status=$?
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "raw.jsonl")) if l.strip()]
total = lambda k: sum(r.get(k, 0) for r in rows)
lines = ["# Power-cut simulation", "",
         f"{len(rows)} seeds, {total('cuts'):,} cut points ({total('cuts_in_formats'):,} in or around a format), "
         f"{total('operations'):,} operations; {total('checkpoints'):,} checkpoints, {total('reclaimed'):,} "
         f"segments reclaimed, {total('reinserted'):,} chunks reinserted, {total('rewrites'):,} chunks rewritten "
         f"with new bytes, {total('appended_during_checkpoints'):,} appended while a checkpoint ran; "
         f"{total('segments_discarded_in_history'):,} segments discarded (TRIM) by the histories' caches that "
         f"discard, {total('segments_discarded_at_start'):,} by the recovered engines that start with discards; "
         f"{total('delta_checkpoints'):,} of the checkpoints were deltas, and {total('cuts_recovered_from_deltas'):,} "
         f"cut images were recovered from one; {total('recovered_runs_checked_after_a_delta'):,} recovered engines "
         f"wrote a delta going on from the one they recovered from, and a crash right after it was checked; "
         f"{total('full_checkpoints_in_steps'):,} full checkpoints were copied in steps between the histories' "
         f"operations (then a delta of what changed meanwhile, then their headers), "
         f"{total('appended_during_full_ends'):,} chunks appended and {total('rewritten_during_full_ends'):,} "
         f"rewritten while their ends ran on a thread of their own; "
         f"{total('cuts_with_devices_changed'):,} cut images were started with the devices changed (in the "
         f"other order, or a blank one added between them, the index then of another size); "
         f"{total('crashes_in_starts'):,} times a crash was followed by a start cut while it wrote the "
         f"superblocks (half of them by a second such start; {total('crashes_in_starts_with_devices_changed'):,} "
         f"with the devices in the other order), then started again.", "",
         f"Recovered images checked: {total('chunks_served'):,} chunks served; "
         f"{total('named_by_the_durable_checkpoint'):,} times a chunk named by a durable checkpoint had to come back "
         f"(at the cuts, and after the second crashes); "
         f"{total('appended_after_recovery'):,} records appended after the recoveries over older records. "
         f"Problems (stale or wrong bytes, entries pointing at another record, chunks restored twice, lost chunks): "
         f"{total('problems')}.", "",
         "| seed | cuts | in formats | served | must come back | appended after | checkpoints | deltas | full in steps | cuts from a delta | crashes after a recovered run's delta | reclaimed | rewrites | discarded in history | problems | s |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    if r["problems"]:
        lines.append(f"| {r['seed']} | {r['cuts']:,} | | | | | | | | | | | | | {r['problems']} (see the run's stderr) | |")
        continue
    lines.append(f"| {r['seed']} | {r['cuts']:,} | {r['cuts_in_formats']:,} | {r['chunks_served']:,} | "
                 f"{r['named_by_the_durable_checkpoint']:,} | {r['appended_after_recovery']:,} | {r['checkpoints']} | "
                 f"{r.get('delta_checkpoints', 0)} | {r.get('full_checkpoints_in_steps', 0)} | "
                 f"{r.get('cuts_recovered_from_deltas', 0)} | "
                 f"{r.get('recovered_runs_checked_after_a_delta', 0)} | "
                 f"{r['reclaimed']} | {r['rewrites']} | {r.get('segments_discarded_in_history', 0):,} | 0 | "
                 f"{r['seconds']:.0f} |")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "raw results and summary in $out" >&2
exit "$status"
