#!/usr/bin/env python3
"""A SIGKILL soak of real Cassandra 5.0.9 nodes under YCSB load; run by scripts/soak-sigkill.sh.

Two nodes side by side, one with the flash chunk cache and one stock, each fed by its own YCSB client
running io.flashchunk.ycsb.soak.SoakWorkload: every value is a function of its key and a version, and
every read is judged against what that client sent and had acknowledged (CHECK OK / LOST_WRITE /
WRONG_VALUE), and every read not judged OK is logged with the times the writes it lost were
acknowledged, so each lost write is placed against the kill that took it. The nodes have small
memtables, so writes flush and compact between kills; some cycles also flush or start a major
compaction just before the kill. Each cycle waits a random time under load, SIGKILLs both nodes at the
same moment and starts them again (the clients keep running and reconnect). At the end each client
saves its versions and a last client reads every key once.

A run appends one line per node to RESULTS/runs.jsonl and rewrites RESULTS/summary.md with every run so
far, so runs of about 90 minutes add up to the issue's 1,000 kills.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time

import node_control
from node_control import Node, flash_yaml, log, run
import ycsb_output

REPO = node_control.REPO
YCSB_SCRIPT = node_control.YCSB_SCRIPT
WORKLOAD = "io.flashchunk.ycsb.soak.SoakWorkload"
KEYSPACE = "soak"
# Small memtables: a few seconds of updates fill one, so every cycle has flushes and compactions.
NODE_YAML = """
memtable_heap_space: 6MiB
memtable_offheap_space: 6MiB
"""
FLASH_SETTINGS = ("checkpoint_interval_ms: 20000",)
# What a cycle does just before its kill, with its share of the cycles.
ACTIONS = (("none", 0.6), ("flush", 0.25), ("compact", 0.15))


class Soaked:
    """One node of the soak and its YCSB client."""

    def __init__(self, name, work, flash, args):
        self.name, self.flash, self.args = name, flash, args
        self.node = Node(os.path.join(work, name))
        self.state = os.path.join(work, f"{name}.state")
        self.device = os.path.join(work, f"{name}-flash.img")
        self.client = None
        self.client_log = os.path.join(work, f"{name}-run.log")
        self.verdict_log = os.path.join(work, f"{name}-verdicts.jsonl")
        self.final_verdict_log = os.path.join(work, f"{name}-final-verdicts.jsonl")
        self.starts = []
        self.warm = 0
        self.recovered = []

    def init(self):
        self.node.init()
        # Both nodes keep a chunk cache in front of their reads (the flash node's loader turns it on), so
        # the cache's kind is the only difference between them.
        self.node.base_yaml = self.node.base_yaml.replace("file_cache_enabled: false\n", "file_cache_enabled: true\n")
        block = None
        if self.flash:
            capacity = self.args.flash_mib << 20
            with open(self.device, "wb") as f:
                f.truncate(capacity)
            block = flash_yaml(self.device, capacity, FLASH_SETTINGS)
        self.node.configure(block)
        with open(self.node.yaml, "a") as f:
            f.write(NODE_YAML)

    def start(self):
        seconds = self.node.start(self.args.heap)
        self.starts.append(seconds)
        if self.flash:
            recovered = self.node.recovered_chunks() or 0
            self.recovered.append(recovered)
            self.warm += recovered > 0
        return seconds

    def ycsb(self, phase, *options):
        return [YCSB_SCRIPT, phase, "--native-port", str(self.node.native), "-p", f"workload={WORKLOAD}",
                "-p", f"recordcount={self.args.records}", "-p", f"fieldlength={self.args.field_length}",
                "-p", f"cassandra.keyspace={KEYSPACE}", "-p", f"soak.state={self.state}",
                "-p", "cassandra.reconnectmaxmillis=500", "-p", "cassandra.requesttimeoutmillis=12000",
                # a kill may come while the client connects: keep trying through the restart
                "-p", "cassandra.connectwaitmillis=120000",
                "-p", f"soak.seed={self.args.seed}-{self.name}", *options]

    def load(self):
        run([YCSB_SCRIPT, "create-table", "--native-port", str(self.node.native), "--keyspace", KEYSPACE,
             "--fields", "1", "--drop"])
        output = run(self.ycsb("load", "-threads", "2"))
        inserted = ycsb_output.parse_summary(output).get(("INSERT", "Return=OK"), 0)
        if inserted != self.args.records:
            raise RuntimeError(f"{self.name}: the load inserted {inserted:.0f} of {self.args.records} records:\n"
                               + output[-3000:])

    def start_client(self, seconds):
        log_file = open(self.client_log, "w")
        self.client = subprocess.Popen(
            self.ycsb("run", "-threads", str(self.args.threads), "-target", str(self.args.target),
                      "-p", f"soak.readproportion={self.args.read_proportion}",
                      "-p", f"soak.verdictlog={self.verdict_log}",
                      "-p", f"maxexecutiontime={seconds}", "-p", "operationcount=2000000000",
                      "-s", "-p", "status.interval=10"),
            stdout=log_file, stderr=subprocess.STDOUT, env=dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1"))
        log_file.close()

    def finish_client(self):
        self.client.wait()
        with open(self.client_log, errors="replace") as f:
            text = f.read()
        if self.client.returncode != 0:
            raise RuntimeError(f"{self.name}: the YCSB client failed (exit {self.client.returncode}):\n{text[-3000:]}")
        return ycsb_output.parse_summary(text)

    def verify(self):
        """Reads every key once; the summary of that read."""
        output = run(self.ycsb("run", "-threads", "4", "-p", "soak.verifyall=true",
                               "-p", f"soak.verdictlog={self.final_verdict_log}",
                               "-p", f"operationcount={self.args.records}"))
        return ycsb_output.parse_summary(output)

    def log_counts(self):
        """ERROR lines and checksum failures the node logged over the whole soak (all its logs)."""
        errors = checksum = 0
        logs = os.path.join(self.node.dir, "logs")
        for name in os.listdir(logs):
            if not name.startswith("system.log"):
                continue
            with open(os.path.join(logs, name), errors="replace") as f:
                for line in f:
                    if line.startswith("ERROR"):
                        errors += 1
                    lower = line.lower()
                    # (the cache's closing summary line reports "checksum=0": not a failure)
                    if "checksum" in lower and ("flash" in lower or "chunk" in lower) and "checksum=0" not in lower:
                        checksum += 1
        return errors, checksum


def counts(summary, section):
    return {key[1].split("=", 1)[1]: int(value) for key, value in summary.items()
            if key[0] == section and key[1].startswith("Return=")}


def cycle_action(rng):
    draw, total = rng.random(), 0.0
    for name, share in ACTIONS:
        total += share
        if draw < total:
            return name
    return ACTIONS[-1][0]


def soak(args, nodes, rng, cycles_file):
    """Kills and restarts every node until the deadline or the kill count; returns the kills' times."""
    deadline = time.time() + args.minutes * 60 - args.tail_seconds
    kills = 0
    kill_times = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(nodes) * 2)
    while time.time() < deadline and (args.kills is None or kills < args.kills):
        time.sleep(rng.uniform(*args.kill_window))
        action = cycle_action(rng)
        compactions = []
        if action == "flush":
            list(pool.map(lambda s: s.node.nodetool("flush", KEYSPACE), nodes))
        elif action == "compact":
            # killed while the compaction runs (nodetool waits for it; the kill ends that too)
            compactions = [subprocess.Popen([node_control.NODE_SCRIPT, "nodetool", s.node.dir, "compact", KEYSPACE],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for s in nodes]
            time.sleep(rng.uniform(1.5, 4.0))
        # SIGKILL both JVMs here, microseconds apart, so the kill's time is known to the millisecond;
        # the launcher then waits for them to be gone and cleans up.
        exits = [os.pidfd_open(s.node.pid()) for s in nodes]
        killed_at = time.time()
        for pidfd in exits:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        for pidfd in exits:
            # readable once the process has exited and its ports are closed
            select.select([pidfd], [], [], 30)
            os.close(pidfd)
        for s in nodes:
            s.node.kill()
        kill_times.append(killed_at)
        for p in compactions:
            p.wait()
        kills += 1
        starts = list(pool.map(lambda s: s.start(), nodes))
        row = {"cycle": kills, "at": round(killed_at, 3), "action": action,
               "start_s": {s.name: t for s, t in zip(nodes, starts)},
               "recovered": {s.name: s.recovered[-1] for s in nodes if s.flash}}
        cycles_file.write(json.dumps(row) + "\n")
        cycles_file.flush()
        if kills % 10 == 0:
            log(f"{kills} kills; last restart {', '.join(f'{s.name} {t:.1f} s' for s, t in zip(nodes, starts))}"
                + "".join(f"; {s.name} recovered {s.recovered[-1]} chunks" for s in nodes if s.flash))
    pool.shutdown()
    return kill_times


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else None


# An acknowledgement the node sent just before its SIGKILL may reach the client thread a little after it.
IN_FLIGHT_S = 0.5


def losses(verdict_logs, kill_times):
    """The acknowledged writes the node lost, each placed against the first kill after its acknowledgement.

    Reads the clients' verdict logs. A read several versions behind may have lost one acknowledged write
    and versions that were never acknowledged; only acknowledged ones are counted here. The milliseconds
    from acknowledgement to kill are negative for acknowledgements the client took in after the kill.
    """
    lost, per_read, before_kill, after_last_kill, unplaced = 0, {}, [], 0, 0
    for verdict_log in verdict_logs:
        if not os.path.exists(verdict_log):
            continue
        with open(verdict_log) as f:
            for line in f:
                entry = json.loads(line)
                if entry["verdict"] != "LOST_WRITE":
                    continue
                if not entry["lost_writes"]:
                    unplaced += 1  # its write's acknowledgement is older than the client's memory
                    continue
                writes = entry["lost_writes"]
                lost += len(writes)
                per_read[len(writes)] = per_read.get(len(writes), 0) + 1
                for _, acknowledged_ms in writes:
                    kill = next((k for k in kill_times if (k + IN_FLIGHT_S) * 1000 >= acknowledged_ms), None)
                    if kill is None:
                        after_last_kill += 1
                    else:
                        before_kill.append(kill * 1000 - acknowledged_ms)
    return {"lost_acknowledged_writes": lost,
            "lost_writes_per_read": {str(k): v for k, v in sorted(per_read.items())},
            "lost_ms_before_kill": {"min": min(before_kill) if before_kill else None,
                                    "median": percentile(before_kill, 0.5), "p99": percentile(before_kill, 0.99),
                                    "max": max(before_kill) if before_kill else None},
            "lost_after_last_kill": after_last_kill, "lost_reads_unplaced": unplaced}


def summarize(args, nodes, kill_times, started, summaries, verified):
    kills = len(kill_times)
    rows = []
    for s in nodes:
        summary, final = summaries[s.name], verified[s.name]
        reads, checks, updates = counts(summary, "READ"), counts(summary, "CHECK"), counts(summary, "UPDATE")
        final_reads, final_checks = counts(final, "READ"), counts(final, "CHECK")
        errors, checksum = s.log_counts()
        rows.append({
            "run": started, "node": s.name, "flash": s.flash, "minutes": args.minutes, "kills": kills,
            "warm_restarts": s.warm if s.flash else None,
            "recovered_median": sorted(s.recovered)[len(s.recovered) // 2] if s.recovered else None,
            "start_s_median": sorted(s.starts)[len(s.starts) // 2],
            "reads_ok": reads.get("OK", 0) + reads.get("NOT_FOUND", 0),
            "reads_failed": sum(v for k, v in reads.items() if k not in ("OK", "NOT_FOUND", "SERVICE_UNAVAILABLE")),
            "reads_unavailable": reads.get("SERVICE_UNAVAILABLE", 0),
            "checked": sum(checks.values()), "wrong_values": checks.get("WRONG_VALUE", 0),
            "lost_writes": checks.get("LOST_WRITE", 0),
            "updates_acknowledged": updates.get("OK", 0),
            "updates_not_acknowledged": sum(v for k, v in updates.items() if k != "OK"),
            "final_checked": sum(final_checks.values()),
            "final_wrong_values": final_checks.get("WRONG_VALUE", 0),
            "final_lost_writes": final_checks.get("LOST_WRITE", 0),
            "final_reads_failed": sum(v for k, v in final_reads.items() if k not in ("OK", "NOT_FOUND")),
            "log_errors": errors, "log_checksum_lines": checksum,
            "records": args.records, "target_ops_s": args.target, "stock_file_cache": True,
            **losses((s.verdict_log, s.final_verdict_log), kill_times),
        })
    return rows


SUMMARY_HEAD = """# SIGKILL soak: real Cassandra 5.0.9 nodes under YCSB, killed at random moments

Written by `scripts/soak-sigkill.sh`; every run appends its rows to `runs.jsonl` and this file is
rewritten from all of them. Each run: two nodes side by side, the flash chunk cache and stock
Cassandra, each fed by its own YCSB client (`SoakWorkload`: values a function of key and version,
every read judged); both killed with SIGKILL at the same random moments and started again. Reads
"failed" are those the node answered with an error (not "no node reachable" while it was down);
"lost writes" are reads older than a write the node had acknowledged (stock Cassandra's periodic
commit log may lose the last seconds at a kill), counted once per loss; "wrong values" are values no
write of that key ever sent. "final" is one read of every key after the last restart. From run
STOCK_CACHE_FROM on, the stock node has `file_cache_enabled: true` too (Cassandra's own chunk cache; the flash
node's loader always turns it on), so the kind of chunk cache is the only difference between the nodes.

| run | node | kills | warm restarts | reads checked | wrong values | failed reads | acknowledged updates | lost writes | final: checked / wrong / lost / failed | ERROR log lines | median start s |
|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|
"""


def write_summary(results):
    rows = []
    with open(os.path.join(results, "runs.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    totals = {}
    lines = []
    for r in rows:
        warm = "" if r["warm_restarts"] is None else f"{r['warm_restarts']:,}"
        lines.append(f"| {r['run']} | {r['node']} | {r['kills']:,} | {warm} "
                     f"| {r['checked']:,} | {r['wrong_values']} | {r['reads_failed']} | {r['updates_acknowledged']:,} | {r['lost_writes']} "
                     f"| {r['final_checked']:,} / {r['final_wrong_values']} / {r['final_lost_writes']} / {r['final_reads_failed']} "
                     f"| {r['log_errors']} | {r['start_s_median']} |")
        t = totals.setdefault(r["node"], {"runs": 0, "kills": 0, "checked": 0, "wrong": 0, "failed": 0, "lost": 0,
                                          "final_wrong": 0, "final_lost": 0, "warm": 0, "acked": 0})
        t["runs"] += 1
        t["kills"] += r["kills"]
        t["checked"] += r["checked"] + r["final_checked"]
        t["wrong"] += r["wrong_values"] + r["final_wrong_values"]
        t["failed"] += r["reads_failed"] + r["final_reads_failed"]
        t["lost"] += r["lost_writes"] + r["final_lost_writes"]
        t["warm"] += r["warm_restarts"] or 0
        t["acked"] += r["updates_acknowledged"]
    stock_cache_from = next((r["run"] for r in rows if r.get("stock_file_cache")), "(none yet)")
    text = SUMMARY_HEAD.replace("STOCK_CACHE_FROM", stock_cache_from) + "\n".join(lines) + "\n\n## Totals\n\n"
    text += ("| node | runs | kills | warm restarts | reads checked | wrong values | failed reads "
             "| acknowledged updates | lost writes | lost per kill | lost per 1,000 acknowledged |\n")
    text += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for node, t in totals.items():
        rate = 1000 * t["lost"] / t["acked"] if t["acked"] else 0
        per_kill = t["lost"] / t["kills"] if t["kills"] else 0
        text += (f"| {node} | {t['runs']} | {t['kills']:,} | {t['warm']:,} | {t['checked']:,} | {t['wrong']} "
                 f"| {t['failed']} | {t['acked']:,} | {t['lost']} | {per_kill:.2f} | {rate:.2f} |\n")
    placed = [r for r in rows if "lost_acknowledged_writes" in r]
    if placed:
        text += LOSSES_HEAD.replace("PLACED_FROM", placed[0]["run"])
        for r in placed:
            per_read = r["lost_writes_per_read"]
            deeper = sum(v for k, v in per_read.items() if int(k) >= 3)
            ms = r["lost_ms_before_kill"]
            text += (f"| {r['run']} | {r['node']} | {r['lost_writes'] + r['final_lost_writes']} "
                     f"| {r['lost_acknowledged_writes']} "
                     f"| {per_read.get('1', 0)} / {per_read.get('2', 0)} / {deeper} "
                     f"| {fmt_ms(ms['min'])} / {fmt_ms(ms['median'])} / {fmt_ms(ms['p99'])} / {fmt_ms(ms['max'])} "
                     f"| {r['lost_after_last_kill']} | {r['lost_reads_unplaced']} |\n")
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write(text)
    return totals


LOSSES_HEAD = """
## Lost writes, placed against the kills

From the clients' verdict logs (runs from PLACED_FROM on). A read that came back several versions old
may have lost one acknowledged write and others that were never acknowledged (sent while the node
was down); only acknowledged writes are counted here. Each is placed against the first kill after the
client heard its acknowledgement (or up to 0.5 s before it: an acknowledgement the node sent just
before the SIGKILL may reach the client just after; those count as negative milliseconds). Cassandra's
periodic commit log (uncompressed) writes a sync marker every 100 ms and replay stops at the last
marker, so a SIGKILL may lose what was acknowledged in the last 100 ms or so before it.

| run | node | reads that lost writes | acknowledged writes lost | reads losing 1 / 2 / 3+ | ms from acknowledgement to kill: min / median / p99 / max | acknowledged after the last kill | reads whose lost writes are unknown |
|---|---|---:|---:|---|---|---:|---:|
"""


def fmt_ms(value):
    return "" if value is None else f"{value:,.0f}"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=90, help="length of the run (default 90)")
    p.add_argument("--kills", type=int, default=None, help="stop after this many kills (default: the time decides)")
    p.add_argument("--records", type=int, default=20000)
    p.add_argument("--field-length", type=int, default=1000)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--target", type=int, default=300, help="ops/s of each client")
    p.add_argument("--read-proportion", type=float, default=0.7)
    p.add_argument("--heap", default="512M")
    p.add_argument("--flash-mib", type=int, default=256, help="the flash cache file's size (default 256)")
    p.add_argument("--kill-window", type=float, nargs=2, default=(1.0, 8.0), metavar=("MIN", "MAX"),
                   help="seconds of load between a restart and the next kill, drawn uniformly (default 1 8)")
    p.add_argument("--tail-seconds", type=float, default=30, help="load after the last restart")
    p.add_argument("--nodes", default="flash,stock", help="flash, stock or both (default)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--work", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--agent-jar", required=True, help="a copy of the plugin jar for the whole run")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    args.work, args.results, args.agent_jar = map(os.path.abspath, (args.work, args.results, args.agent_jar))
    args.seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    rng = random.Random(args.seed)
    node_control.AGENT_JAR = args.agent_jar
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.results, exist_ok=True)
    nodes = [Soaked(name, args.work, name == "flash", args) for name in args.nodes.split(",")]
    log(f"soak {started}: {', '.join(s.name for s in nodes)} nodes, {args.records:,} records, "
        f"{args.minutes} min, seed {args.seed}")
    try:
        for s in nodes:
            s.init()
        with concurrent.futures.ThreadPoolExecutor(len(nodes)) as pool:
            list(pool.map(lambda s: s.start(), nodes))
            list(pool.map(lambda s: s.load(), nodes))
        for s in nodes:
            s.start_client(int(args.minutes * 60))
        with open(os.path.join(args.work, "cycles.jsonl"), "w") as cycles:
            kill_times = soak(args, nodes, rng, cycles)
        log(f"{len(kill_times)} kills; waiting for the clients to finish")
        summaries = {s.name: s.finish_client() for s in nodes}
        verified = {s.name: s.verify() for s in nodes}
        for s in nodes:
            s.node.stop()
    except BaseException:
        for s in nodes:
            if s.client and s.client.poll() is None:
                s.client.kill()
            subprocess.run([node_control.NODE_SCRIPT, "kill", s.node.dir], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        raise
    rows = summarize(args, nodes, kill_times, started, summaries, verified)
    with open(os.path.join(args.results, "runs.jsonl"), "a") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    totals = write_summary(args.results)
    for row in rows:
        log(f"{row['node']}: {row['kills']} kills, {row['checked']:,} reads checked, {row['wrong_values']} wrong values, "
            f"{row['reads_failed']} failed reads, {row['lost_writes']} lost writes; final read of every key: "
            f"{row['final_checked']:,} checked, {row['final_wrong_values']} wrong, {row['final_lost_writes']} lost, "
            f"{row['final_reads_failed']} failed"
            + (f"; {row['warm_restarts']} warm restarts" if row["flash"] else ""))
    for node, t in totals.items():
        log(f"all runs so far, {node}: {t['kills']:,} kills, {t['wrong']} wrong values, {t['failed']} failed reads, "
            f"{t['lost']} lost writes")
    bad = [r for r in rows if r["wrong_values"] or r["final_wrong_values"] or r["reads_failed"]
           or r["final_reads_failed"] or r["final_checked"] != args.records]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
