#!/usr/bin/env python3
"""The cache in a real Cassandra 5.0.9 cluster: the steps that make and remove SSTables under it, with
YCSB at QUORUM checking every value, and every row read back on every node at ONE after each step.

Used by scripts/tests/test-cassandra-cluster-steps.sh (CI: small data, short phases) and by
scripts/cluster-soak.sh (larger data, longer phases at a steady rate, a report and a plot).

Nodes 1-3 have the flash cache, RF 3. YCSB runs
io.flashchunk.ycsb.soak.SoakWorkload (values a function of key and version; each read judged against
what was acknowledged) at QUORUM for reads and writes, with only the nodes that stay up as its
coordinators. The steps, each under load:
  kill       SIGKILL node 3, keep writing, restart it warm, repair;
  join       bootstrap node 4 (flash); RF 4 and node 4 rebuilt from node 1 alone, whose SSTables
             then stream whole (zero-copy) into node 4's running cache, and are read through it;
  leave      RF 3, cleanup on every node, decommission node 2;
  maintain   repair -full, incremental repair, upgradesstables -a, scrub, ALTER TABLE to another
             chunk length and upgradesstables -a again;
  rolling    each node stopped and started again, its flash cache warm (its log says how many
             chunks it recovered).
After each step (load stopped, hints delivered, memtables flushed): every row read at ONE through each
node alone (the driver pinned to it, `cassandra.onlyhosts`); the table's local read count on every
node (system_views.local_read_latency, what `nodetool tablestats` calls the local read count) shows that
node served every one of its reads and no other node served any (with RF = nodes
every node holds every row; GossipingPropertyFileSnitch with the dynamic snitch off puts the
coordinator first among the replicas, and speculative retry is off while checking, so a ONE read is
the coordinator's own); every file the flash cache may serve chunks of (JMX attribute CachedFiles)
exists on that node; and each node's chunk-cache line of `nodetool info`.
Every check failing raises; the script exits non-zero with the reason. `--self-test` checks the
parsers.
"""
import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from node_control import FLASH_BEAN, REPO, YCSB_SCRIPT
import ycsb_output

CLUSTER_SH = os.path.join(REPO, "scripts", "cassandra-cluster.sh")
WORKLOAD = "io.flashchunk.ycsb.soak.SoakWorkload"
KEYSPACE, TABLE = "soak", "usertable"
KILLED_NODE = 3
ADDED_NODE = 4
DECOMMISSIONED_NODE = 2
# Checkpoints often enough that a node killed a little while after its cache filled restarts warm.
FLASH_SETTINGS = ("  checkpoint_interval_ms: 5000",)
START = time.time()
EVENTS = []  # [epoch seconds, what happened] for the report's plot


class CheckFailed(Exception):
    """A check of the cluster failed: the message says which and how."""


def event(what):
    EVENTS.append([round(time.time(), 1), what])


def log(message):
    print(f"[cluster {time.time() - START:6.0f} s] {message}", file=sys.stderr, flush=True)


def run(command, timeout=900, check=True):
    result = subprocess.run(command, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    if check and result.returncode != 0:
        raise CheckFailed(f"{' '.join(command)} failed (exit {result.returncode}):\n{result.stdout[-4000:]}")
    return result.stdout


# ---------------------------------------------------------------- parsers (pure; --self-test)

def parse_local_read_count(text):
    """The count of the one row cqlsh printed for `SELECT count FROM system_views.local_read_latency ...`
    (the table's local read count, as `nodetool tablestats` shows it, read faster)."""
    counts = re.findall(r"^\s*(\d+)\s*$", text, re.MULTILINE)
    if len(counts) != 1 or "(1 rows)" not in text:
        raise CheckFailed(f"system_views.local_read_latency: expected one row with a count, got:\n{text[-2000:]}")
    return int(counts[0])


def parse_checkpoint_figures(summary):
    """(checkpoints, chunks appended since the last one) from the MXBean's Summary, or None."""
    m = re.search(r"checkpoints=(\d+) \(failed \d+, last #\d+, appended since (\d+)\)", summary)
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_cached_files(text):
    """[path] of the MXBean attribute CachedFiles as sjk prints it (one absolute path a line)."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith("/")]


def parse_chunk_cache(text):
    """The 'Chunk Cache' line of `nodetool info` and its figures: entries, requests, hit rate."""
    line = next((l for l in text.splitlines() if l.startswith("Chunk Cache")), None)
    if line is None:
        raise CheckFailed(f"nodetool info has no Chunk Cache line:\n{text[-2000:]}")
    line = line.split(":", 1)[1].strip()
    figures = {"line": line}
    for key, pattern in (("entries", r"entries (\d+)"), ("requests", r"(\d+) requests"),
                         ("hit_rate", r"([\d.]+|NaN) recent hit rate")):
        m = re.search(pattern, line)
        figures[key] = None if not m or m.group(1) == "NaN" else float(m.group(1))
    return figures


def parse_recovered(log_text):
    """Chunks recovered at each start of the flash cache the log shows, in order."""
    return [int(n) for n in re.findall(r"flash chunk cache: serving Cassandra's chunk cache from \d+ device\(s\), "
                                       r"capacity \d+ MiB, (\d+) chunks recovered", log_text)]


def parse_pending_hints(text):
    """Rows of `nodetool listpendinghints` (0 when it says there are none)."""
    if "This node does not have any pending hints" in text:
        return 0
    return sum(1 for line in text.splitlines() if re.match(r"^\s*[0-9a-f]{8}-[0-9a-f-]{27}\s", line))


def parse_ring_ranges(text):
    """[(start, end)] token pairs of `nodetool describering`'s TokenRange lines."""
    return [(int(a), int(b)) for a, b in re.findall(r"TokenRange\(start_token:(-?\d+), end_token:(-?\d+),", text)]


def parse_whole_received(log_text):
    """Data files of the rows table that the log shows received whole: the zero-copy writer of
    entire-SSTable streaming logs each component it writes, at INFO."""
    return [path for component, path in re.findall(r"Writing component (\S+) to (\S+) length \d+", log_text)
            if component == "Data.db" and f"/{KEYSPACE}/{TABLE}-" in path]


def verdicts(summary):
    """{(section, return): count} of a YCSB summary, for READ, UPDATE, INSERT and CHECK."""
    return {(k[0], k[1].split("=", 1)[1]): int(v) for k, v in summary.items()
            if k[1].startswith("Return=") and k[0] in ("READ", "UPDATE", "INSERT", "CHECK")}


def self_test():
    assert parse_local_read_count("\n count\n-------\n  4123\n\n(1 rows)\n") == 4123
    try:
        parse_local_read_count("\n count\n-------\n\n(0 rows)\n")
        raise AssertionError("no row accepted")
    except CheckFailed:
        pass
    assert parse_checkpoint_figures("invalidations=0, checkpoints=4 (failed 1, last #5, appended since 37), "
                                    "recovered=0") == (4, 37)
    assert parse_checkpoint_figures("hits memory=0 dram=0 flash=0") is None
    files = parse_cached_files("/r/node1/data/soak/usertable-1/nb-3-big-Data.db\n/r/x/nb 1-big-Data.db\nCachedFiles\n\n")
    assert files == ["/r/node1/data/soak/usertable-1/nb-3-big-Data.db", "/r/x/nb 1-big-Data.db"], files
    info = ("ID: 1\nChunk Cache            : entries 212, size 3.3 MiB, capacity 128 MiB, 9120 misses, 20000 requests, "
            "0.544 recent hit rate, NaN microseconds miss latency\n")
    cc = parse_chunk_cache(info)
    assert cc["entries"] == 212 and cc["requests"] == 20000 and cc["hit_rate"] == 0.544, cc
    assert parse_chunk_cache("Chunk Cache : entries 0, 0 requests, NaN recent hit rate")["hit_rate"] is None
    text = ("INFO  x flash chunk cache: serving Cassandra's chunk cache from 1 device(s), capacity 128 MiB, 0 chunks recovered\n"
            "INFO  y flash chunk cache: serving Cassandra's chunk cache from 1 device(s), capacity 128 MiB, 517 chunks recovered\n")
    assert parse_recovered(text) == [0, 517]
    assert parse_pending_hints("This node does not have any pending hints\n") == 0
    assert parse_pending_hints("Host ID                               Address    Rack  DC  Status Total files Newest Oldest\n"
                               "5e2b4d2a-3f5e-4a3e-9a3b-0f1e2d3c4b5a  127.0.0.3  rack1 dc1 UP 2 ...\n") == 1
    ring = ("TokenRange(start_token:-9, end_token:40, endpoints:[127.0.0.1], rpc_endpoints:[127.0.0.1], ...)\n"
            "\tTokenRange(start_token:40, end_token:-9, endpoints:[127.0.0.2], ...)\n")
    assert parse_ring_ranges(ring) == [(-9, 40), (40, -9)], parse_ring_ranges(ring)
    zero_copy = ("INFO  [Stream-Deserializer-/127.0.0.1:7000-1] 2026-11-25 10:00:00,000 SSTableZeroCopyWriter.java:160 - "
                 "Writing component Data.db to /r/node4/data/soak/usertable-0a1b/nb-7-big-Data.db length 123456\n"
                 "INFO  [x] 2026-11-25 SSTableZeroCopyWriter.java:160 - Writing component Index.db to "
                 "/r/node4/data/soak/usertable-0a1b/nb-7-big-Index.db length 99\n"
                 "INFO  [x] 2026-11-25 SSTableZeroCopyWriter.java:160 - Writing component Data.db to "
                 "/r/node4/data/system_distributed/repair_history-1/nb-2-big-Data.db length 10\n")
    assert parse_whole_received(zero_copy) == ["/r/node4/data/soak/usertable-0a1b/nb-7-big-Data.db"]
    summary = ycsb_output.parse_summary("[READ], Return=OK, 10\n[CHECK], Return=OK, 9\n[CHECK], Return=LOST_WRITE, 1\n"
                                        "[READ], Operations, 10\n")
    assert verdicts(summary) == {("READ", "OK"): 10, ("CHECK", "OK"): 9, ("CHECK", "LOST_WRITE"): 1}
    assert read_failures({("READ", "OK"): 5, ("READ", "NOT_FOUND"): 1, ("READ", "ERROR"): 2}) == 3  # a row not found is a failed read here
    print("cluster_steps self-test: ok")


def read_failures(counts):
    return sum(v for (section, ret), v in counts.items() if section == "READ" and ret not in ("OK",))


# ---------------------------------------------------------------- the cluster

def free_ports(nodes):
    """A CQL and a storage port free on 127.0.0.1..nodes, and `nodes` JMX ports in a row on 127.0.0.1."""
    def free(port, addresses):
        for a in addresses:
            with socket.socket() as s:
                try:
                    s.bind((a, port))
                except OSError:
                    return False
        return True
    addresses = [f"127.0.0.{k}" for k in range(1, nodes + 1)]
    chosen = []
    while len(chosen) < 2:
        p = random.randrange(20000, 30000)
        if p not in chosen and free(p, addresses):
            chosen.append(p)
    while True:
        j = random.randrange(20000, 30000)
        if all(free(j + i, ["127.0.0.1"]) and j + i not in chosen for i in range(nodes)):
            return chosen[0], chosen[1], j


class Cluster:
    def __init__(self, args):
        self.args = args
        self.root = os.path.join(args.work, "cluster")
        self.live = []  # node numbers that are members now
        self.native = None

    def sh(self, *arguments, timeout=900):
        return run([CLUSTER_SH, *arguments], timeout=timeout)

    def node_dir(self, k):
        return os.path.join(self.root, f"node{k}")

    def nodetool(self, k, *arguments, timeout=900):
        return self.sh("nodetool", self.root, str(k), *arguments, timeout=timeout)

    def system_log(self, k):
        with open(os.path.join(self.node_dir(k), "logs", "system.log"), errors="replace") as f:
            return f.read()

    def configure(self, k):
        """What this test changes in a node's conf after init: the snitch and the flash cache's checkpoint interval."""
        conf = os.path.join(self.node_dir(k), "conf")
        yaml_path = os.path.join(conf, "cassandra.yaml")
        with open(yaml_path) as f:
            yaml = f.read()
        if "endpoint_snitch: SimpleSnitch\n" not in yaml:
            raise CheckFailed(f"{yaml_path} has no 'endpoint_snitch: SimpleSnitch' line to replace")
        # A topology snitch sorts the coordinator first among equal replicas; the dynamic snitch,
        # off, cannot reorder them by latency: a read at ONE is then the coordinator's own.
        yaml = yaml.replace("endpoint_snitch: SimpleSnitch\n", "endpoint_snitch: GossipingPropertyFileSnitch\n")
        yaml += "\ndynamic_snitch: false\n"
        if "flash_chunk_cache:\n" in yaml:
            block = "flash_chunk_cache:\n" + "".join(line + "\n" for line in FLASH_SETTINGS)
            yaml = yaml.replace("flash_chunk_cache:\n", block, 1)
        with open(yaml_path, "w") as f:
            f.write(yaml)
        rackdc = os.path.join(conf, "cassandra-rackdc.properties")
        with open(rackdc, "w") as f:
            f.write("dc=datacenter1\nrack=rack1\n")
        with open(os.path.join(conf, "jvm-extra.options"), "a") as f:
            f.write(f"-Dcassandra-rackdc.properties=file://{rackdc}\n")

    def init(self):
        native, storage, jmx = free_ports(ADDED_NODE)
        self.native = native
        log(f"cluster in {self.root}: CQL {native}, storage {storage}, JMX {jmx}-{jmx + ADDED_NODE - 1}")
        self.sh("init", self.root, "--nodes", "3", "--flash-cache", f"{self.args.flash_mib}MiB",
                "--cluster-name", "ClusterSteps", "--native-port", str(native), "--storage-port", str(storage),
                "--jmx-port", str(jmx), "--jar", self.args.jar)
        for k in (1, 2, 3):
            self.configure(k)
        t0 = time.time()
        self.sh("start", self.root, "--heap", self.args.heap)
        self.live = [1, 2, 3]
        log(f"nodes 1-3 UN in {time.time() - t0:.0f} s")
        for k in self.live:
            if "flash chunk cache: serving" not in self.system_log(k):
                raise CheckFailed(f"node {k}'s log does not say the flash cache serves")

    def kill_all(self):
        for k in range(1, ADDED_NODE + 1):
            if os.path.exists(os.path.join(self.node_dir(k), "cassandra.pid")):
                subprocess.run([CLUSTER_SH, "kill", self.root, str(k)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)

    def cql(self, k, statement):
        return self.sh("cqlsh", self.root, str(k), "-e", statement)

    def recovered(self, k):
        counts = parse_recovered(self.system_log(k))
        return counts[-1] if counts else None


# ---------------------------------------------------------------- YCSB

class Client:
    """A YCSB SoakWorkload client run at QUORUM through chosen coordinators, ended by a stop file."""

    def __init__(self, cluster, name, hosts, read_proportion):
        self.cluster, self.name, self.hosts = cluster, name, hosts
        a = cluster.args
        self.output = os.path.join(a.work, f"ycsb-{name}.log")
        self.stop_file = os.path.join(a.work, f"stop-{name}")
        command = base_ycsb(cluster, "run", hosts, "QUORUM") + [
            "-threads", str(a.threads), "-target", str(a.target),
            "-p", f"soak.readproportion={read_proportion}", "-p", f"soak.stopfile={self.stop_file}",
            "-p", "operationcount=2000000000", "-p", "maxexecutiontime=3600",
            "-s", "-p", f"status.interval={a.status_interval}", "-p", "hdrhistogram.percentiles=50,99"]
        self.started = time.time()
        with open(self.output, "w") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                            env=dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1"))

    def stop(self):
        """Ends the run (state saved) and returns its summary's counts and the output text."""
        with open(self.stop_file, "w"):
            pass
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise CheckFailed(f"YCSB client {self.name} did not end within 120 s of its stop file")
        with open(self.output, errors="replace") as f:
            text = f.read()
        if self.process.returncode != 0:
            raise CheckFailed(f"YCSB client {self.name} failed (exit {self.process.returncode}):\n{text[-3000:]}")
        return verdicts(ycsb_output.parse_summary(text)), text, ycsb_output.parse_summary(text)

    def abort(self):
        if self.process.poll() is None:
            self.process.kill()


def base_ycsb(cluster, phase, hosts, consistency, state=None):
    a = cluster.args
    return [YCSB_SCRIPT, phase, "--native-port", str(cluster.native), "-p", f"workload={WORKLOAD}",
            "-p", f"hosts={','.join(f'127.0.0.{k}' for k in hosts)}", "-p", "cassandra.onlyhosts=true",
            "-p", f"cassandra.readconsistencylevel={consistency}",
            "-p", f"cassandra.writeconsistencylevel={consistency}",
            "-p", f"recordcount={a.records}", "-p", f"fieldlength={a.field_length}",
            "-p", f"cassandra.keyspace={KEYSPACE}", "-p", f"soak.state={state or a.state}",
            "-p", "cassandra.reconnectmaxmillis=1000", "-p", f"soak.seed={a.seed}"]


# ---------------------------------------------------------------- checks

def wait_for(what, condition, seconds, interval=1.0):
    """Polls condition() (a value, or None/False while not yet) until the deadline; raises naming what."""
    deadline = time.time() + seconds
    last = None
    while True:
        last = condition()
        if last:
            return last
        if time.time() >= deadline:
            raise CheckFailed(f"{what}: not within {seconds} s")
        time.sleep(interval)


def settle(cluster):
    """With the load stopped: hints delivered everywhere, memtables flushed, so reads come from SSTables."""
    def no_hints():
        with ThreadPoolExecutor(len(cluster.live)) as pool:
            pending = list(pool.map(lambda k: parse_pending_hints(cluster.nodetool(k, "listpendinghints")),
                                    cluster.live))
        return sum(pending) == 0
    wait_for("hints delivered on every node", no_hints, 120, interval=2)
    with ThreadPoolExecutor(len(cluster.live)) as pool:
        list(pool.map(lambda k: cluster.nodetool(k, "flush", KEYSPACE), cluster.live))


def read_counts(cluster):
    with ThreadPoolExecutor(len(cluster.live)) as pool:
        # a virtual table: each node answers with its own figure
        counts = pool.map(lambda k: parse_local_read_count(cluster.cql(
            k, "SELECT count FROM system_views.local_read_latency "
               f"WHERE keyspace_name = '{KEYSPACE}' AND table_name = '{TABLE}'")), cluster.live)
        return dict(zip(cluster.live, counts))


def verify_every_node(cluster, step):
    """Every row read at ONE through each node alone, each read served by that node's own replica."""
    a = cluster.args
    settle(cluster)
    cluster.cql(cluster.live[0], f"ALTER TABLE {KEYSPACE}.{TABLE} WITH speculative_retry = 'NONE'")
    results = {}
    try:
        before = read_counts(cluster)
        for k in cluster.live:
            # a copy of the state: a verdict may lower a key's acknowledged version, and the load
            # goes on from the real one
            state = os.path.join(a.work, f"verify-{step}-node{k}.state")
            shutil.copy(a.state, state)
            if os.path.exists(a.state + ".acknowledgements"):
                shutil.copy(a.state + ".acknowledgements", state + ".acknowledgements")
            t0 = time.time()
            output = run(base_ycsb(cluster, "run", [k], "ONE", state) + [
                "-threads", "4", "-p", "soak.verifyall=true", "-p", f"operationcount={a.records}"])
            counts = verdicts(ycsb_output.parse_summary(output))
            checked = sum(v for (s, _), v in counts.items() if s == "CHECK")
            ok = counts.get(("CHECK", "OK"), 0)
            if checked != a.records or ok != a.records or read_failures(counts):
                raise CheckFailed(f"{step}: reading every row at ONE through node {k} alone: {counts} "
                                  f"(expected {a.records} CHECK OK, no failed read; a LOST_WRITE or WRONG_VALUE "
                                  f"here is a stale or wrong row on node {k}):\n{output[-3000:]}")
            after = read_counts(cluster)
            served = {n: after[n] - before[n] for n in cluster.live}
            others = {n: v for n, v in served.items() if n != k and v}
            if served[k] != a.records or others:
                raise CheckFailed(f"{step}: node {k}'s reads at ONE were served by {served} (local reads per node); "
                                  f"expected all {a.records} by node {k} itself and none elsewhere")
            before = after
            results[k] = {"checked": checked, "seconds": round(time.time() - t0, 1)}
    finally:
        cluster.cql(cluster.live[0], f"ALTER TABLE {KEYSPACE}.{TABLE} WITH speculative_retry = '99p'")
    log(f"{step}: every row ({a.records}) read at ONE through each of nodes {cluster.live} alone and right, "
        f"each served by the node's own replica")
    return results


def live_data_files(cluster, k):
    found = set()
    for dirpath, _, names in os.walk(os.path.join(cluster.node_dir(k), "data")):
        for name in names:
            if name.endswith("-Data.db"):
                found.add(os.path.realpath(os.path.join(dirpath, name)))
    return found


def cached_files(cluster, k):
    out = cluster.nodetool(k, "sjk", "mx", "-b", FLASH_BEAN, "-mg", "-f", "CachedFiles")
    return parse_cached_files(out), out


def check_cache_files(cluster, step):
    """Every file the flash cache may serve chunks of is a data file that exists on that node."""
    def check(k):
        last = {}

        def only_live_files():
            files, out = cached_files(cluster, k)
            on_disk = live_data_files(cluster, k)
            gone = [path for path in files if os.path.realpath(path) not in on_disk]
            last.update(files=files, gone=gone, out=out)
            return not gone
        try:
            # a compaction may delete a file between the listing and the look: such a file leaves the
            # cache's list within seconds (the adapter watches released files), a forgotten one never
            wait_for(f"node {k}'s cache forgetting removed files", only_live_files, 60, interval=3)
        except CheckFailed:
            raise CheckFailed(f"{step}: node {k}'s flash cache still holds files that are not on disk after 60 s: "
                              f"{last.get('gone')}\n(CachedFiles: {last.get('out', '')[-2000:]})")
        return {"files": len(last["files"])}
    # every node at once: each look is a nodetool, a JVM start
    with ThreadPoolExecutor(len(cluster.live)) as pool:
        return dict(zip(cluster.live, pool.map(check, cluster.live)))


def cache_figures(cluster, step):
    def figures_of(k):
        info = parse_chunk_cache(cluster.nodetool(k, "info"))
        mx = cluster.nodetool(k, "sjk", "mx", "-b", FLASH_BEAN, "-mg", "-f", "Summary")
        flash = re.search(r"hits memory=\d+ dram=\d+ flash=(\d+)", mx)
        return {**info, "flash_hits": int(flash.group(1)) if flash else None}
    with ThreadPoolExecutor(len(cluster.live)) as pool:
        figures = dict(zip(cluster.live, pool.map(figures_of, cluster.live)))
    for k, info in figures.items():
        log(f"{step}: node {k} chunk cache: {info['line']}")
    return figures


def after_step(cluster, step, report):
    entry = report.setdefault(step, {})
    entry["verify"] = verify_every_node(cluster, step)
    entry["cached_files"] = check_cache_files(cluster, step)
    entry["cache"] = cache_figures(cluster, step)
    log(f"{step}: every flash cache holds only files on disk "
        + ", ".join(f"node {k} {v['files']} files" for k, v in entry["cached_files"].items()))


def run_client_during(cluster, report, step, hosts, read_proportion, action):
    """Runs a client over `hosts` while action() runs (after a first part of the phase); checks its counts."""
    client = Client(cluster, step, hosts, read_proportion)
    try:
        wait_for(f"YCSB client {step} to report its first interval",
                 lambda: ycsb_output.windows([open(client.output, errors="replace").read()])
                 or client.process.poll() is not None, 120, interval=1)
        if client.process.poll() is not None:
            raise CheckFailed(f"YCSB client {step} ended early:\n{open(client.output, errors='replace').read()[-3000:]}")
        t0 = time.time()
        action()
        # the rest of the phase under load, at least one status interval after the action
        remaining = cluster.args.phase_seconds - (time.time() - client.started)
        wait_for(f"{step}: the phase's load", lambda: time.time() - t0 >= cluster.args.status_interval
                 and time.time() - client.started >= cluster.args.phase_seconds, max(remaining, 0) + 3600,
                 interval=1)
        counts, text, summary = client.stop()
    except BaseException:
        client.abort()
        raise
    entry = report.setdefault(step, {})
    entry["ycsb"] = {f"{s} {r}": v for (s, r), v in sorted(counts.items())}
    entry["measured"] = ycsb_output.measured([text], 0, 10 ** 9)
    entry["latency_ms"] = {f"{op.lower()}_{p}": summary[(op, f"{p}thPercentileLatency(us)")] / 1000
                           for op in ("READ", "UPDATE") for p in (50, 99)
                           if (op, f"{p}thPercentileLatency(us)") in summary}
    entry["timeline"] = [[round(w["at"], 1), round(w["ops"], 1)] for _, w in sorted(ycsb_output.windows([text]).items())]
    entry["started"], entry["ended"] = client.started, time.time()
    wrong = counts.get(("CHECK", "WRONG_VALUE"), 0)
    lost = counts.get(("CHECK", "LOST_WRITE"), 0)
    failed_reads = read_failures(counts)
    failed_updates = sum(v for (s, r), v in counts.items() if s == "UPDATE" and r != "OK")
    checked = sum(v for (s, _), v in counts.items() if s == "CHECK")
    log(f"{step}: YCSB at QUORUM through nodes {hosts}: {checked} reads checked, {wrong} wrong values, "
        f"{lost} lost writes, {failed_reads} failed reads, {failed_updates} failed updates, "
        f"{entry['measured']['ops_per_s']:.0f} ops/s")
    if wrong or lost or failed_reads or checked == 0:
        raise CheckFailed(f"{step}: YCSB at QUORUM: {counts} (expected reads checked, none wrong, lost or failed); "
                          f"see {client.output}")
    entry["failed_updates"] = failed_updates


# ---------------------------------------------------------------- the steps

def step_kill(cluster, report):
    victim = KILLED_NODE
    others = [k for k in cluster.live if k != victim]

    def durable():
        """True once a checkpoint covers every chunk the victim's cache holds (or one came since the last look)."""
        summary = cluster.nodetool(victim, "sjk", "mx", "-b", FLASH_BEAN, "-mg", "-f", "Summary")
        figures = parse_checkpoint_figures(summary)
        if figures is None:
            raise CheckFailed(f"node {victim}: no checkpoint figures in the MXBean's Summary: {summary[-1000:]}")
        checkpoints, changes = figures
        newer = checkpoints > seen[0] >= 0
        seen[0] = checkpoints
        return checkpoints >= 1 and (changes == 0 or newer)

    def action():
        # to restart warm, the victim's cache needs entries, and a checkpoint after they came
        wait_for(f"node {victim}'s flash cache to hold chunks",
                 lambda: (parse_chunk_cache(cluster.nodetool(victim, "info"))["entries"] or 0) > 0, 120, interval=3)
        wait_for(f"node {victim}'s flash cache to have its chunks in a checkpoint", durable, 60, interval=2)
        cluster.sh("kill", cluster.root, str(victim))
        event(f"node {victim} SIGKILLed")
        wait_for(f"nodes {others} to see node {victim} down",
                 lambda: all(re.search(rf"^DN\s+127\.0\.0\.{victim}\s", cluster.nodetool(k, "status"), re.MULTILINE)
                             for k in others), 60, interval=1)
        down_since = time.time()
        wait_for("writes at QUORUM with a node down", lambda: time.time() - down_since >= cluster.args.down_seconds,
                 cluster.args.down_seconds + 5)
        event(f"node {victim} starting")
        cluster.sh("start-node", cluster.root, str(victim), "--heap", cluster.args.heap)
        event(f"node {victim} UN")
        recovered = cluster.recovered(victim)
        report.setdefault("kill", {})["recovered"] = recovered
        if not recovered:
            raise CheckFailed(f"node {victim} restarted after SIGKILL cold: its flash cache recovered {recovered} chunks")
        log(f"kill: node {victim} SIGKILLed, {cluster.args.down_seconds} s of load with it down, restarted warm "
            f"({recovered} chunks recovered)")

    seen = [-1]
    run_client_during(cluster, report, "kill", others, 0.8, action)
    # hints and a repair bring it up to date (its periodic commit log may have lost its last writes)
    t0 = time.time()
    cluster.nodetool(victim, "repair", "-full", KEYSPACE)
    log(f"kill: node {victim} repaired (repair -full, {time.time() - t0:.0f} s)")
    after_step(cluster, "kill", report)


def rebuild_whole(cluster, k, source):
    """Raises the rows keyspace to RF = nodes and rebuilds node k's every range from `source` alone, so
    that each of the source's SSTables lies wholly in what it sends and streams whole (zero-copy).
    Returns the rows table's files node k received whole (the zero-copy writer names each Data.db it writes)."""
    nodes = len(cluster.live)
    cluster.cql(k, f"ALTER KEYSPACE {KEYSPACE} WITH replication = "
                   f"{{'class': 'SimpleStrategy', 'replication_factor': {nodes}}}")
    ranges = parse_ring_ranges(cluster.nodetool(k, "describering", KEYSPACE))
    before = len(parse_whole_received(cluster.system_log(k)))
    cluster.nodetool(k, "rebuild", "-ks", KEYSPACE, "-ts", ",".join(f"({a},{b}]" for a, b in ranges),
                     "-s", f"127.0.0.{source}", "--", "datacenter1")
    received = parse_whole_received(cluster.system_log(k))[before:]
    if not received:
        raise CheckFailed(f"node {k}'s rebuild from node {source} streamed no {KEYSPACE}.{TABLE} SSTable whole "
                          f"(no 'Writing component Data.db' of the zero-copy writer in its log)")
    return received


def step_join(cluster, report):
    def action():
        cluster.sh("add-node", cluster.root, "--no-start")
        cluster.configure(ADDED_NODE)
        # Cassandra 5 refuses to stream again a range the node already holds (its bootstrap took
        # most of them) unless told to forget what it holds: the rebuild below streams every range.
        with open(os.path.join(cluster.node_dir(ADDED_NODE), "conf", "jvm-extra.options"), "a") as f:
            f.write("-Dcassandra.reset_bootstrap_progress=true\n")
        t0 = time.time()
        event(f"node {ADDED_NODE} bootstraps")
        cluster.sh("start-node", cluster.root, str(ADDED_NODE), "--heap", cluster.args.heap)
        event(f"node {ADDED_NODE} UN")
        if "Bootstrap completed" not in cluster.system_log(ADDED_NODE):
            raise CheckFailed(f"node {ADDED_NODE} did not bootstrap")
        entry = report.setdefault("join", {})
        entry["bootstrap_s"] = round(time.time() - t0, 1)
        cluster.live.append(ADDED_NODE)
        log(f"join: node {ADDED_NODE} bootstrapped in {time.time() - t0:.0f} s")
        # Bootstrap takes parts of the ring from three sources, so the rows table streams the partial
        # way; a rebuild from one source at RF = nodes sends its SSTables whole, into a running cache.
        # Compaction would merge what arrives whole into new files before the check reads them.
        cluster.nodetool(ADDED_NODE, "disableautocompaction", KEYSPACE, TABLE)
        t0 = time.time()
        event(f"RF {len(cluster.live)}, node {ADDED_NODE} rebuilds from node 1")
        received = rebuild_whole(cluster, ADDED_NODE, 1)
        entry["rebuild_s"] = round(time.time() - t0, 1)
        entry["received_whole"] = len(received)
        entry["_received"] = received
        log(f"join: RF {len(cluster.live)}; node {ADDED_NODE} rebuilt from node 1 in {time.time() - t0:.0f} s, "
            f"{len(received)} {KEYSPACE}.{TABLE} SSTables received whole")

    # coordinators: the nodes that stay members throughout
    run_client_during(cluster, report, "join", [1, 3], 1.0, action)
    # every row read at ONE through node 4 while the files it received whole are still there
    after_step(cluster, "join", report)
    entry = report["join"]
    still = [p for p in entry.pop("_received") if os.path.exists(p)]
    cached = {os.path.realpath(p) for p in cached_files(cluster, ADDED_NODE)[0]}
    entry["received_whole_cached"] = sum(1 for p in still if os.path.realpath(p) in cached)
    if len(still) != entry["received_whole"] or not entry["received_whole_cached"]:
        raise CheckFailed(f"join: of the {entry['received_whole']} SSTables node {ADDED_NODE} received whole, "
                          f"{len(still)} are on disk and its flash cache holds chunks of "
                          f"{entry['received_whole_cached']}: the check did not read them through the cache")
    log(f"join: node {ADDED_NODE}'s flash cache served reads of {entry['received_whole_cached']} of the "
        f"{entry['received_whole']} SSTables it received whole")


def step_leave(cluster, report):
    def action():
        cluster.nodetool(ADDED_NODE, "enableautocompaction", KEYSPACE, TABLE)
        event("RF 3, cleanup")
        cluster.cql(1, f"ALTER KEYSPACE {KEYSPACE} WITH replication = "
                       f"{{'class': 'SimpleStrategy', 'replication_factor': 3}}")
        with ThreadPoolExecutor(len(cluster.live)) as pool:
            list(pool.map(lambda k: cluster.nodetool(k, "cleanup", KEYSPACE), cluster.live))
        event("cleanup done")
        t0 = time.time()
        cluster.nodetool(DECOMMISSIONED_NODE, "decommission")
        event(f"node {DECOMMISSIONED_NODE} decommissioned")
        cluster.live.remove(DECOMMISSIONED_NODE)
        cluster.sh("stop-node", cluster.root, str(DECOMMISSIONED_NODE))
        report.setdefault("leave", {})["decommission_s"] = round(time.time() - t0, 1)
        wait_for(f"node {DECOMMISSIONED_NODE} gone from the ring",
                 lambda: not re.search(rf"127\.0\.0\.{DECOMMISSIONED_NODE}\s", cluster.nodetool(1, "status")), 120, 2)
        log(f"leave: RF 3, every node cleaned up, node {DECOMMISSIONED_NODE} decommissioned in {time.time() - t0:.0f} s")

    run_client_during(cluster, report, "leave", [1, 3], 0.8, action)
    after_step(cluster, "leave", report)


def step_maintain(cluster, report):
    def action():
        first = cluster.live[0]
        event("repair -full")
        cluster.nodetool(first, "repair", "-full", KEYSPACE)
        event("incremental repair")
        cluster.nodetool(first, "repair", KEYSPACE)
        event("upgradesstables, scrub")
        with ThreadPoolExecutor(len(cluster.live)) as pool:
            list(pool.map(lambda k: cluster.nodetool(k, "upgradesstables", "-a", KEYSPACE, TABLE), cluster.live))
            list(pool.map(lambda k: cluster.nodetool(k, "scrub", KEYSPACE, TABLE), cluster.live))
        event("ALTER chunk length, rewrite")
        cluster.cql(first, f"ALTER TABLE {KEYSPACE}.{TABLE} WITH compression = "
                           f"{{'class': 'LZ4Compressor', 'chunk_length_in_kb': {cluster.args.new_chunk_kb}}}")
        with ThreadPoolExecutor(len(cluster.live)) as pool:
            list(pool.map(lambda k: cluster.nodetool(k, "upgradesstables", "-a", KEYSPACE, TABLE), cluster.live))
        log(f"maintain: repair -full, incremental repair, upgradesstables -a, scrub, chunk length "
            f"{cluster.args.chunk_kb} -> {cluster.args.new_chunk_kb} KiB and upgradesstables -a done")

    run_client_during(cluster, report, "maintain", cluster.live[:], 0.8, action)
    desc = cluster.cql(cluster.live[0], f"DESCRIBE TABLE {KEYSPACE}.{TABLE}")
    if f"'chunk_length_in_kb': '{cluster.args.new_chunk_kb}'" not in desc:
        raise CheckFailed(f"the table's chunk length is not {cluster.args.new_chunk_kb} KiB after ALTER:\n{desc}")
    after_step(cluster, "maintain", report)


def step_rolling(cluster, report):
    recovered = {}
    for k in cluster.live[:cluster.args.rolling_nodes]:
        others = [n for n in cluster.live if n != k]

        def action():
            event(f"node {k} restarts")
            cluster.sh("stop-node", cluster.root, str(k))
            cluster.sh("start-node", cluster.root, str(k), "--heap", cluster.args.heap)
            recovered[k] = cluster.recovered(k)
            if not recovered[k]:
                raise CheckFailed(f"rolling restart: node {k} restarted cold ({recovered[k]} chunks recovered)")
            log(f"rolling: node {k} restarted warm ({recovered[k]} chunks recovered)")
        run_client_during(cluster, report, f"rolling-{k}", others, 0.8, action)
    report.setdefault("rolling", {})["recovered"] = recovered
    after_step(cluster, "rolling", report)


def load(cluster, report):
    a = cluster.args
    run([YCSB_SCRIPT, "create-table", "--native-port", str(cluster.native), "--host", "127.0.0.1",
         "--keyspace", KEYSPACE, "--fields", "1", "--replication-factor", "3", "--chunk-kb", str(a.chunk_kb)])
    output = run(base_ycsb(cluster, "load", [1, 2, 3], "QUORUM") + ["-threads", "4"])
    inserted = verdicts(ycsb_output.parse_summary(output)).get(("INSERT", "OK"), 0)
    if inserted != a.records:
        raise CheckFailed(f"the load inserted {inserted} of {a.records} rows at QUORUM:\n{output[-3000:]}")
    log(f"{a.records} rows loaded at QUORUM")
    after_step(cluster, "load", report)


# ---------------------------------------------------------------- the long script's report

STEP_ORDER = ("load", "kill", "join", "leave", "maintain", "rolling-1", "rolling-3", "rolling-4", "rolling")


def write_report(results_dir):
    """summary.md (a table per step) and throughput.png (ops/s over time, each event marked) from results.json."""
    with open(os.path.join(results_dir, "results.json")) as f:
        report = json.load(f)
    steps = report["steps"]
    lines = ["| step | YCSB coordinators' ops/s | read p50 / p99 ms | update p50 / p99 ms | reads checked "
             "| wrong values | lost writes | failed reads | failed updates | rows read at ONE per node |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---|"]
    for name in [n for n in STEP_ORDER if n in steps] + [n for n in steps if n not in STEP_ORDER]:
        e = steps[name]
        y = e.get("ycsb", {})
        lat = e.get("latency_ms", {})
        verify = e.get("verify", {})
        checked = sum(v for k, v in y.items() if k.startswith("CHECK "))
        per_node = ", ".join(f"node {k}: {v['checked']:,}" for k, v in verify.items())
        failed_reads = sum(v for k, v in y.items() if k.startswith("READ ") and k != "READ OK")
        lines.append(
            f"| {name} | {e['measured']['ops_per_s']:.0f} | {fmt(lat.get('read_50'))} / {fmt(lat.get('read_99'))} "
            f"| {fmt(lat.get('update_50'))} / {fmt(lat.get('update_99'))} | {checked:,} "
            f"| {y.get('CHECK WRONG_VALUE', 0)} | {y.get('CHECK LOST_WRITE', 0)} | {failed_reads} "
            f"| {e.get('failed_updates', 0)} | {per_node} |"
            if "measured" in e else
            f"| {name} | | | | | | | | | {per_node} |")
    cache = ["| after step | node | chunk cache (nodetool info) | flash hits | files cached |", "|---|---|---|---:|---:|"]
    for name, e in steps.items():
        for k, c in e.get("cache", {}).items():
            files = e.get("cached_files", {}).get(k, {}).get("files")
            cache.append(f"| {name} | {k} | {c['line']} | {fmt(c.get('flash_hits'), 0)} | {fmt(files, 0)} |")
    with open(os.path.join(results_dir, "summary.md"), "w") as f:
        f.write("# Cluster steps under YCSB\n\n" + f"{'passed' if report['passed'] else 'FAILED'} in "
                f"{report['seconds']:.0f} s; settings: `{json.dumps({k: v for k, v in report['args'].items() if k not in ('work', 'results', 'jar', 'state')})}`\n\n"
                + "\n".join(lines) + "\n\n" + "\n".join(cache) + "\n")
    plot(report, os.path.join(results_dir, "throughput.png"))


def fmt(value, digits=1):
    return "" if value is None else f"{value:,.{digits}f}"


def plot(report, path):
    timed = [e for e in report["steps"].values() if e.get("timeline")]
    if not timed:
        return
    import benchlib  # pyplot, installed with pip first if missing: a fresh machine has no matplotlib
    plt = benchlib.import_pyplot(log)
    origin = min(e["started"] for e in timed)
    fig, ax = plt.subplots(figsize=(12, 4.5))
    for e in timed:  # one line per client: no line across the checks between steps
        ax.plot([p[0] - origin for p in e["timeline"]], [p[1] for p in e["timeline"]], ".-", lw=1, color="C0")
    top = ax.get_xaxis_transform()  # x in data, y in axes fractions
    for name, e in report["steps"].items():
        if "started" in e:
            ax.axvspan(e["started"] - origin, e["ended"] - origin, alpha=0.08, color="C1")
            ax.text(e["started"] - origin, 0.98, name, fontsize=8, va="top", transform=top)
    for at, what in report.get("events", []):
        ax.axvline(at - origin, color="grey", lw=0.6, ls=":")
        ax.text(at - origin, 0.02, what, rotation=90, fontsize=7, va="bottom", transform=top)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("seconds")
    ax.set_ylabel(f"YCSB ops/s (QUORUM; {report['args']['status_interval']} s windows)")
    ax.set_title("Cluster steps under YCSB: throughput; shaded: a step's load, dotted: its actions")
    benchlib.save_figure(plt, fig, path)


STEPS = (("kill", step_kill), ("join", step_join), ("leave", step_leave), ("maintain", step_maintain),
         ("rolling", step_rolling))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--report", metavar="RESULTS", help="only write RESULTS/summary.md and throughput.png from results.json")
    p.add_argument("--work", help="a directory for the cluster and the clients' files (removed at the end)")
    p.add_argument("--results", help="a directory for results.json (and what the caller adds)")
    p.add_argument("--jar", default=os.path.join(REPO, "plugin", "target", "flashchunk-cassandra.jar"))
    p.add_argument("--records", type=int, default=3000)
    p.add_argument("--field-length", type=int, default=1000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--target", type=int, default=200, help="ops/s of the YCSB client")
    p.add_argument("--phase-seconds", type=float, default=20, help="at least this long under load per step")
    p.add_argument("--down-seconds", type=float, default=15, help="load while the killed node is down")
    p.add_argument("--rolling-nodes", type=int, default=99,
                   help="how many nodes the rolling restart restarts, in turn (default: every live node)")
    # ycsb_output.windows takes a client's first window to be ycsb_output.STATUS_INTERVAL_S long
    p.add_argument("--status-interval", type=int, default=ycsb_output.STATUS_INTERVAL_S)
    p.add_argument("--heap", default="640M")
    p.add_argument("--flash-mib", type=int, default=128)
    p.add_argument("--chunk-kb", type=int, default=16)
    p.add_argument("--new-chunk-kb", type=int, default=4)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--steps", default=",".join(name for name, _ in STEPS),
                   help="the steps to run after the load, in order (each needs those before it in STEPS)")
    p.add_argument("--keep", action="store_true", help="leave the work directory (the nodes are stopped)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.self_test:
        self_test()
        return 0
    if args.report:
        write_report(args.report)
        return 0
    if not args.work:
        raise SystemExit("--work DIR is required")
    unknown = [n for n in args.steps.split(",") if n not in dict(STEPS)]
    if unknown:
        raise SystemExit(f"--steps: no step named {', '.join(unknown)}; the steps are {', '.join(n for n, _ in STEPS)}")
    args.work = os.path.abspath(args.work)
    args.seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    os.makedirs(args.work, exist_ok=True)
    args.state = os.path.join(args.work, "soak.state")
    cluster = Cluster(args)
    report = {"args": {k: v for k, v in vars(args).items() if k not in ("self_test",)}, "steps": {}}
    t0 = time.time()
    ok = False
    try:
        cluster.init()
        load(cluster, report["steps"])
        for name, step in STEPS:
            if name in args.steps.split(","):
                step(cluster, report["steps"])
        cluster.sh("stop", cluster.root)
        ok = True
    except CheckFailed as e:
        log(f"FAILED: {e}")
        for k in range(1, ADDED_NODE + 1):
            path = os.path.join(cluster.node_dir(k), "logs", "system.log")
            if os.path.exists(path):
                print(f"---- tail of node {k}'s system.log", file=sys.stderr)
                with open(path, errors="replace") as f:
                    sys.stderr.writelines(f.readlines()[-25:])
        for name in sorted(os.listdir(args.work)):
            if name.startswith("ycsb-") and name.endswith(".log"):
                print(f"---- tail of {name}", file=sys.stderr)
                with open(os.path.join(args.work, name), errors="replace") as f:
                    sys.stderr.writelines(f.readlines()[-10:])
    finally:
        cluster.kill_all()
        report["seconds"] = round(time.time() - t0, 1)
        report["events"] = EVENTS
        report["passed"] = ok
        if args.results:
            os.makedirs(args.results, exist_ok=True)
            with open(os.path.join(args.results, "results.json"), "w") as f:
                json.dump(report, f, indent=1)
            write_report(args.results)
        if not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
    log(f"{'passed' if ok else 'FAILED'} in {report['seconds']:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
