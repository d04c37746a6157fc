#!/usr/bin/env bash
# A SIGKILL soak of real Cassandra 5.0.9 nodes under YCSB load (issue 14, item 4): a node with the flash
# chunk cache and a stock node beside it, both killed with SIGKILL at the same random moments and started
# again, every read checked against values that are a function of the key (see scripts/soak_sigkill.py).
# Needs root. Each run appends to RESULTS/runs.jsonl and rewrites RESULTS/summary.md with the total so far.
#
#   scripts/soak-sigkill.sh                  a 90-minute run into target/results/soak-sigkill/
#   scripts/soak-sigkill.sh --minutes 3      a short one (CI runs one into a temporary directory)
#
# Options go to soak_sigkill.py (--minutes, --kills, --records, --target, --kill-window MIN MAX, --seed,
# --nodes flash|stock|flash,stock, --results DIR, --work DIR). Exit 1 if any read failed or was wrong.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
results="target/results/soak-sigkill"
work="target/soak"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; echo; python3 scripts/soak_sigkill.py --help; exit 0 ;;
    --results) results="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
PROG=soak-sigkill.sh
# shellcheck source=lib/common.sh
source "$repo/scripts/lib/common.sh"
mkdir -p "$work"
stage="$(mktemp -d "$(cd "$(dirname "$work")" && pwd)/soak-stage-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
stage_node_build "$stage"
python3 scripts/soak_sigkill.py --work "$work" --results "$results" --agent-jar "$stage/agent.jar" "${args[@]}"
