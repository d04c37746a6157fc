#!/usr/bin/env bash
# Faults injected into the flash device of a live Cassandra 5.0.9 node under YCSB load (issue 14, item 5):
# EIO on every other I/O, a 1 s stall on every I/O, and a hung device, each for a phase, between healthy
# phases, while a YCSB client checks every read (see scripts/faults_live.py). Needs root. Results go to
# target/results/faults-live-<UTC time>/ (or --out DIR): summary.md, result.json, samples.jsonl.
#
#   scripts/faults-live.sh                       3-minute phases (about 25 minutes)
#   scripts/faults-live.sh --phase-seconds 20    a short run (CI runs one into a temporary directory)
#
# Exit 1 if a read failed or was wrong, a fault phase did not take the device out of use, or the device
# was still out of use at the end.
set -euo pipefail
command_line="$0 $*"  # before the options are shifted away, for machine.txt
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="target/results/faults-live-$(date -u +%Y%m%dT%H%M%SZ)"
work="target/faults-live"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; echo; python3 scripts/faults_live.py --help; exit 0 ;;
    --out) out="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
PROG=faults-live.sh
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
mkdir -p "$work" "$out"
stage="$(mktemp -d "$(cd "$(dirname "$work")" && pwd)/faults-stage-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
stage_node_build "$stage"
{ nproc; free -g; uname -r; java -version 2>&1; echo "command: $command_line"; git rev-parse HEAD; } > "$out/machine.txt"
python3 scripts/faults_live.py --work "$work" --out "$out" --agent-jar "$stage/agent.jar" \
  --capi-library "$stage/libcflsh_block.so" "${args[@]}"
