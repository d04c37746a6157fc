#!/usr/bin/env bash
# Runs every test of the project: the native library's C tests, the benchmark reports' self-tests,
# all Maven modules (with integration tests on real Cassandra nodes), then the launcher's (one node, then
# a 3-node cluster, then the cluster steps: kill, bootstrap, decommission, repairs, rewrites, rolling
# restart under YCSB) and the plugin installer's end-to-end tests.
# On a fresh Debian machine it first installs what the tests need (as root).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
# each step's start names the time since the run began, so a slow step shows in CI's log
step() { echo "== [$((SECONDS / 60))m$((SECONDS % 60))s] $*"; }

"$repo/scripts/install-deps.sh"

step "native: libcflsh_block and libflashchunk_uring (make test)"
make -s -C native all test

step "benchmark scripts: self-tests (synthetic results; capped_storage attaches, caps and probes a real loop device)"
for report in bench_ycsb ycsb_output cluster_steps capped_storage bench_io_cost bench_cache_report bench_device_report bench_ycsb_report bench_profile_report bench_jit_report sim_cache_report plot_ycsb_timeline; do
  python3 "$repo/scripts/$report.py" --self-test
done

step "docs: every relative link names a file that exists and every #anchor a heading"
python3 "$repo/scripts/check_doc_links.py"

step "maven: mvn verify"
mvn -B verify

# the launcher end to end (init, start, cqlsh, nodetool, stop), then the installer on a synthetic
# Cassandra 5.0.9 installation with a real node and an offline tool (both need the jar mvn verify built)
step "scripts/tests/test-cassandra-node.sh"
"$repo/scripts/tests/test-cassandra-node.sh"
# a 3-node cluster on 127.0.0.1-3 (two flash nodes, one stock): RF 3, a node killed and restarted
step "scripts/tests/test-cassandra-cluster.sh"
"$repo/scripts/tests/test-cassandra-cluster.sh"
# the cache through a cluster's SSTable-changing steps under YCSB at QUORUM, every row checked per node
step "scripts/tests/test-cassandra-cluster-steps.sh"
# (CI's time is bounded: 1,500 rows, 10 s of load a step, and only the join (streaming into a running
# cache) and the maintenance (repairs, upgradesstables, scrub, a new chunk length: every file rewritten
# on every node). Not the kill step nor the rolling restart: a node of a cluster killed and restarted
# is the cluster test's above, warm restarts after a SIGKILL are RestartIT's, CassandraVersionsIT's and
# the soak's below; nor the leave, whose cleanup rewrites files as the maintenance does. The script's
# defaults: every step, 3,000 rows, every node, 20 s a step.)
"$repo/scripts/tests/test-cassandra-cluster-steps.sh" --phase-seconds 10 --records 1500 \
  --steps join,maintain
step "scripts/tests/test-install-plugin.sh"
"$repo/scripts/tests/test-install-plugin.sh"
# a release tarball of HEAD, unpacked with no checkout around it, installed into 5.0.9 and 4.1.10 layouts
# whose real nodes serve reads from the flash cache
step "scripts/tests/test-release.sh"
"$repo/scripts/tests/test-release.sh"
# the exporter rules, the Grafana dashboard and the alerts on a real node, exporter agent and Prometheus server
step "scripts/tests/test-prometheus.py"
python3 "$repo/scripts/tests/test-prometheus.py"
# the power-cut simulator's long-run script, at a size that only checks it works end to end
step "scripts/sim-power-cut.sh (2 seeds, 10 cut points each)"
sim_out="$(mktemp -d)"
"$repo/scripts/sim-power-cut.sh" --seeds 2 --cuts 10 --operations 2000 --out "$sim_out" >/dev/null
grep -q "chunks restored twice, lost chunks): 0\." "$sim_out/summary.md"
rm -rf "$sim_out"
# the cache simulator's script, on small traces: checks it runs end to end and reports every design
step "scripts/sim-cache.sh (small traces)"
sim_out="$(mktemp -d)"
"$repo/scripts/sim-cache.sh" --chunks 20000 --reads 200000 --fractions 0.2 --segment-mib 1 --heap 1g \
  --out "$sim_out" >/dev/null
python3 - "$sim_out/raw.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert len({r["design"] for r in rows}) >= 2 and {r["trace"] for r in rows} >= {"hotspot 30/80", "zipfian 0.99"}, rows
assert all(0 < r["hit_ratio"] < 1 and r["written_per_admitted"] >= 1 for r in rows), rows
PY
test -s "$sim_out/hit-ratios.png"
rm -rf "$sim_out"
# the SIGKILL soak of a real node (YCSB checking every read), short: two kills, each after 8-12 s of load
# (the long soak runs a stock node beside it for comparison; here it would only halve each node's CPU)
step "scripts/soak-sigkill.sh (2 minutes, 2 kills)"
soak_out="$(mktemp -d)"
"$repo/scripts/soak-sigkill.sh" --minutes 2 --kills 2 --kill-window 8 12 --nodes flash --records 5000 \
  --results "$soak_out" --work "$repo/target/soak-ci" >/dev/null
python3 - "$soak_out/runs.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
assert [r["node"] for r in rows] == ["flash"], rows
for r in rows:
    assert r["kills"] >= 2 and r["wrong_values"] == 0 and r["reads_failed"] == 0, r
    assert r["final_checked"] == r["records"] and r["final_wrong_values"] == 0 and r["final_reads_failed"] == 0, r
    assert r["checked"] > 1000, r
    assert not r["flash"] or r["warm_restarts"] >= 1, r
PY
rm -rf "$soak_out" "$repo/target/soak-ci"
# faults injected into a live node's flash device (EIO, 1 s stalls, a hang), short phases
step "scripts/faults-live.sh (20 s phases)"
faults_out="$(mktemp -d)"
"$repo/scripts/faults-live.sh" --phase-seconds 20 --retry-seconds 8 --records 5000 --out "$faults_out" \
  --work "$repo/target/faults-ci" >/dev/null
rm -rf "$faults_out" "$repo/target/faults-ci"
step "all tests passed"
