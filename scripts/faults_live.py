#!/usr/bin/env python3
"""Faults injected into the flash device of a live Cassandra 5.0.9 node under YCSB load; run by
scripts/faults-live.sh.

The node's flash cache runs on the CAPI engine over our libcflsh_block (no CAPI card exists here; the
library is the card), whose fault file (FLASHCHUNK_CBLK_FAULT_FILE) changes what the "card" does while
the node runs: every other I/O failing with EIO, every I/O stalled for 1 s, every I/O hung. Phases of
faults alternate with healthy phases. A YCSB client (SoakWorkload: values a function of key and
version, every read judged) runs through all of them. Every 5 s the script samples the cache's JMX
bean (io.flashchunk:type=FlashChunkCache) through nodetool's sjk; at the end it counts the cache's log
lines about taking the device out of use and back, and writes OUT/samples.jsonl, OUT/summary.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import benchlib
import node_control
from node_control import Node, log, run
import ycsb_output

YCSB_SCRIPT = node_control.YCSB_SCRIPT
WORKLOAD = "io.flashchunk.ycsb.soak.SoakWorkload"
KEYSPACE = "faults"
ATTRIBUTES = ("FlashHits", "Misses", "ReadErrors", "ReadTimeouts", "WriteErrors", "DeviceBypasses", "BypassedReads",
              "DevicesBypassed", "CheckpointFailures", "Entries")
PHASES = (
    ("healthy", ""),
    ("EIO on every 2nd I/O", "read_error_every=2\nwrite_error_every=2\n"),
    ("healthy", ""),
    ("1 s stall on every I/O", "latency_us=1000000\n"),
    ("healthy", ""),
    ("hung device", "hang=1\n"),
    ("healthy", ""),
)
LOG_EVENTS = {"bypassed": "is bypassed for", "probed": "trying device", "back": "is in use again"}


def cache_block(device, capacity, library, retry_seconds):
    return "\n".join([
        "chunk_cache_class: " + node_control.CACHE_CLASS, "flash_chunk_cache:", "  strict: true", "  devices:",
        f"    - path: {device}", f"      capacity: {capacity}", "      engine: capi", f"      capi_library: {library}",
        # the last checkpoint at shutdown may meet a device that was hung minutes ago: keep that wait short
        "  device_timeout_ms: 10000", f"  slow_device_retry_ms: {retry_seconds * 1000}",
        # 1 MiB segments: the records' chunks fill several, so hits read the faulty device rather than
        # the segment still open in memory
        "  segment_size_mib: 1", ""])


def jmx(node):
    """{attribute: value} of the cache's bean, through `nodetool sjk mxdump` (an empty dict if unreadable)."""
    result = subprocess.run([node_control.NODE_SCRIPT, "nodetool", node.dir, "sjk", "mxdump", "-q",
                             node_control.FLASH_BEAN], capture_output=True, text=True)
    start = result.stdout.find("{")
    try:
        beans = json.loads(result.stdout[start:])["beans"] if start >= 0 else []
    except ValueError:
        return {}
    return {k: v for k, v in beans[0].items() if k in ATTRIBUTES} if beans else {}


def log_events(node, since_line):
    """[(event, line)] of the cache's device lines in system.log after line number since_line."""
    events = []
    with open(os.path.join(node.dir, "logs", "system.log"), errors="replace") as f:
        for number, line in enumerate(f):
            if number < since_line:
                continue
            for event, marker in LOG_EVENTS.items():
                if marker in line:
                    events.append((event, line.strip()))
    return events


def log_length(node):
    with open(os.path.join(node.dir, "logs", "system.log"), errors="replace") as f:
        return sum(1 for _ in f)


def ycsb(node, args, state, phase, *options):
    return [YCSB_SCRIPT, phase, "--native-port", str(node.native), "-p", f"workload={WORKLOAD}",
            "-p", f"recordcount={args.records}", "-p", f"fieldlength={args.field_length}",
            "-p", f"cassandra.keyspace={KEYSPACE}", "-p", f"soak.state={state}", *options]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--phase-seconds", type=int, default=180, help="length of each phase (default 180)")
    p.add_argument("--retry-seconds", type=int, default=60,
                   help="slow_device_retry_ms of the node, in seconds (default 60, the product's default)")
    p.add_argument("--records", type=int, default=20000)
    p.add_argument("--field-length", type=int, default=1000)
    p.add_argument("--target", type=int, default=400, help="YCSB ops/s (default 400)")
    p.add_argument("--heap", default="768M")
    p.add_argument("--flash-mib", type=int, default=256)
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--agent-jar", required=True)
    p.add_argument("--capi-library", required=True)
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    args.work, args.out, args.agent_jar, args.capi_library = map(
        os.path.abspath, (args.work, args.out, args.agent_jar, args.capi_library))
    node_control.AGENT_JAR = args.agent_jar
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(args.out, exist_ok=True)
    fault_file = os.path.join(args.work, "faults.conf")
    os.environ["FLASHCHUNK_CBLK_FAULT_FILE"] = fault_file  # the node inherits it
    with open(fault_file, "w"):
        pass
    device = os.path.join(args.work, "flash.img")
    capacity = args.flash_mib << 20
    with open(device, "wb") as f:
        f.truncate(capacity)
    state = os.path.join(args.work, "versions.state")
    node = Node(os.path.join(args.work, "node"))
    node.init()
    node.configure(cache_block(device, capacity, args.capi_library, args.retry_seconds))
    client = None
    samples = open(os.path.join(args.out, "samples.jsonl"), "w")
    try:
        node.start(args.heap)
        run([YCSB_SCRIPT, "create-table", "--native-port", str(node.native), "--keyspace", KEYSPACE, "--fields", "1",
             "--drop"])
        log(f"loading {args.records:,} records")
        run(ycsb(node, args, state, "load", "-threads", "2"))
        node.nodetool("flush", KEYSPACE)
        log("reading every record once (the cache fills)")
        run(ycsb(node, args, state, "run", "-threads", "4", "-p", "soak.verifyall=true",
                 "-p", f"operationcount={args.records}"))
        # The fill may have kept the device busy enough to be taken out of use: start from a device in
        # use, under a read-only warm-up client (its reads meet no fault; it is ended, not counted).
        warmup = subprocess.Popen(ycsb(node, args, state, "run", "-threads", "4", "-target", str(args.target),
                                       "-p", "soak.readproportion=1", "-p", "maxexecutiontime=3600",
                                       "-p", "operationcount=2000000000"),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1"))
        try:
            # in use: not out of use, and serving hits, twice in a row (a device whose retry time has
            # passed is not out of use until its probe has been judged)
            deadline = time.time() + 2 * args.retry_seconds + 60
            last, in_use = jmx(node), 0
            while in_use < 2:
                if time.time() > deadline:
                    raise RuntimeError("the flash device is still out of use before the first phase")
                time.sleep(3)
                now = jmx(node)
                serving = now.get("DevicesBypassed", 1) == 0 and now.get("FlashHits", 0) > last.get("FlashHits", 0)
                in_use = in_use + 1 if serving else 0
                last = now
        finally:
            warmup.kill()
            warmup.wait()
        total = args.phase_seconds * len(PHASES) + 15
        client_log = os.path.join(args.work, "client.log")
        with open(client_log, "w") as out:
            client = subprocess.Popen(ycsb(node, args, state, "run", "-threads", "8", "-target", str(args.target),
                                           "-p", "soak.readproportion=0.9", "-p", f"maxexecutiontime={total}",
                                           "-p", "operationcount=2000000000", "-s", "-p", "status.interval=5"),
                                      stdout=out, stderr=subprocess.STDOUT,
                                      env=dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1"))
        client_end = time.time() + total
        started = time.time()
        phases = []
        for index, (name, faults) in enumerate(PHASES):
            with open(fault_file, "w") as f:
                f.write(faults)
            begin, first_line = time.time(), log_length(node)
            # the last healthy phase lasts until the client ends (its closing summary holds the checks)
            end = started + (index + 1) * args.phase_seconds if index < len(PHASES) - 1 else client_end - 5
            before = jmx(node)
            log(f"phase {index + 1}/{len(PHASES)}: {name} for {args.phase_seconds} s")
            while time.time() < end:
                time.sleep(max(0.0, min(5.0, end - time.time())))
                sample = {"t": round(time.time() - started, 1), "phase": index, "name": name, **jmx(node)}
                samples.write(json.dumps(sample) + "\n")
                samples.flush()
            after = jmx(node)
            events = log_events(node, first_line)
            phases.append({"phase": index, "name": name, "from_s": round(begin - started, 1),
                           "to_s": round(time.time() - started, 1), "before": before, "after": after,
                           "events": events})
            log(f"  {name}: flash hits +{after.get('FlashHits', 0) - before.get('FlashHits', 0):,}, "
                f"bypassed now {after.get('DevicesBypassed')}, log: {', '.join(e for e, _ in events) or 'nothing'}")
        with open(fault_file, "w"):
            pass
        client.wait()
        with open(client_log, errors="replace") as f:
            text = f.read()
        summary = ycsb_output.parse_summary(text)
        node.stop()
    except BaseException:
        if client and client.poll() is None:
            client.kill()
        subprocess.run([node_control.NODE_SCRIPT, "kill", node.dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        raise
    finally:
        samples.close()
    reads = {k[1].split("=", 1)[1]: int(v) for k, v in summary.items() if k[0] == "READ" and k[1].startswith("Return=")}
    checks = {k[1].split("=", 1)[1]: int(v) for k, v in summary.items() if k[0] == "CHECK" and k[1].startswith("Return=")}
    failed_reads = sum(v for k, v in reads.items() if k not in ("OK", "NOT_FOUND"))
    wrong = checks.get("WRONG_VALUE", 0)
    result = {"phase_seconds": args.phase_seconds, "reads": reads, "checks": checks, "failed_reads": failed_reads,
              "wrong_values": wrong, "phases": phases, "ops_per_s": summary.get(("OVERALL", "Throughput(ops/sec)"))}
    with open(os.path.join(args.out, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    write_summary(args, result)
    plot(args.out, result)
    log(f"{sum(reads.values()):,} reads, {failed_reads} failed, {wrong} wrong values; summary in {args.out}/summary.md")
    problems = [f"{p['phase'] + 1}. {p['name']}: {why}" for p, why in judge(phases)]
    for problem in problems:
        log("problem: " + problem)
    return 0 if failed_reads == 0 and wrong == 0 and not problems else 1


def judge(phases):
    """(phase, what is wrong) for each phase that did not do what it should: a fault phase takes the
    device out of use; a healthy phase serves flash hits, and after a fault brings the device back."""
    for p in phases:
        events = [e for e, _ in p["events"]]
        hits = p["after"].get("FlashHits", 0) - p["before"].get("FlashHits", 0)
        if p["name"] != "healthy" and "bypassed" not in events:
            yield p, "the device was not taken out of use"
        if p["name"] == "healthy" and hits <= 0:
            yield p, "no flash hits"
        if p["name"] == "healthy" and p["phase"] > 0 and "back" not in events:
            yield p, "the device did not come back"


def plot(out, result):
    """faults-live.png: flash hits and misses per second over the run, fault phases shaded."""
    plt = benchlib.import_pyplot(log)
    with open(os.path.join(out, "samples.jsonl")) as f:
        samples = [json.loads(line) for line in f if line.strip()]
    points = [(b["t"], (b["FlashHits"] - a["FlashHits"]) / (b["t"] - a["t"]), (b["Misses"] - a["Misses"]) / (b["t"] - a["t"]))
              for a, b in zip(samples, samples[1:]) if "FlashHits" in a and "FlashHits" in b and b["t"] > a["t"]]
    fig, ax = plt.subplots(figsize=(10, 4))
    for p in result["phases"]:
        if p["name"] != "healthy":
            ax.axvspan(p["from_s"], p["to_s"], color="tab:red", alpha=0.12)
            ax.text((p["from_s"] + p["to_s"]) / 2, 1.0, p["name"], transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=8)
    ax.plot([t for t, _, _ in points], [h for _, h, _ in points], label="flash hits/s")
    ax.plot([t for t, _, _ in points], [m for _, _, m in points], label="misses/s (SSTable reads)")
    ax.set_xlabel("seconds")
    ax.set_ylabel("chunk reads per second")
    ax.set_title(f"Faults on a live node's flash device: {result['failed_reads']} failed reads, "
                 f"{result['wrong_values']} wrong values", pad=18)
    ax.legend(loc="center right", fontsize=8)
    benchlib.save_figure(plt, fig, os.path.join(out, "faults-live.png"))


def write_summary(args, result):
    lines = ["# Faults injected into a live node's flash device, under YCSB", "",
             f"Written by `scripts/faults-live.sh` ({args.phase_seconds} s phases, {args.records:,} records, "
             f"YCSB target {args.target} ops/s, 90% reads). The node's cache runs on the CAPI engine over "
             "`native/`'s libcflsh_block, whose fault file changes what the device does while the node runs.", "",
             f"YCSB reads: {sum(result['reads'].values()):,}, failed: **{result['failed_reads']}**; reads checked: "
             f"{sum(result['checks'].values()):,}, wrong values: **{result['wrong_values']}**, lost writes: "
             f"{result['checks'].get('LOST_WRITE', 0)}.", "",
             "| phase | seconds | flash hits | misses | read errors | read timeouts | write errors | device taken out of use "
             "| bypassed reads | out of use at the end | cache log lines |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for p in result["phases"]:
        b, a = p["before"], p["after"]

        def delta(name):
            return f"{a.get(name, 0) - b.get(name, 0):,}" if name in a and name in b else "?"
        events = ", ".join(f"{e}" for e, _ in p["events"]) or "none"
        lines.append(f"| {p['phase'] + 1}. {p['name']} | {p['from_s']:.0f}-{p['to_s']:.0f} | {delta('FlashHits')} "
                     f"| {delta('Misses')} | {delta('ReadErrors')} | {delta('ReadTimeouts')} | {delta('WriteErrors')} "
                     f"| {delta('DeviceBypasses')} | {delta('BypassedReads')} | {a.get('DevicesBypassed', '?')} | {events} |")
    lines += ["", "The cache's log lines, as written:", "", "```"]
    for p in result["phases"]:
        lines += [line for _, line in p["events"]]
    lines += ["```", "", "![flash hits and misses per second, fault phases shaded](faults-live.png)", ""]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
