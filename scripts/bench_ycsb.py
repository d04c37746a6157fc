#!/usr/bin/env python3
"""The paper's evaluation (Table II, Figures 4-7) at this machine's scale; run by scripts/bench-ycsb.sh.

One Cassandra 5.0.9 node (scripts/cassandra-node.sh) holds the YCSB data twice: LZ4-compressed in
64 KiB chunks (keyspace ycsb) and uncompressed (ycsb_raw), each compacted to one SSTable. Then every
configuration runs on the same data, one after the other in one run: the node is restarted inside a
cgroup v1 memory limit (the paper's Docker limit) after the page cache is dropped, warmed up, and
measured at each YCSB target throughput with several client processes. Raw results go to
OUT/raw.jsonl as they come; scripts/bench_ycsb_report.py makes the table and the plots.
"""
import argparse
import contextlib
import json
import lzma
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE_SCRIPT = os.path.join(REPO, "scripts", "cassandra-node.sh")
YCSB_SCRIPT = os.path.join(REPO, "scripts", "ycsb.sh")
AGENT_JAR = os.path.join(REPO, "plugin", "target", "flashchunk-cassandra.jar")
WORKLOADS = os.path.join(REPO, "ycsb-workloads", "workloads")
LOADER = "io.flashchunk.cassandra.config.FlashChunkConfigurationLoader"
CACHE_CLASS = "io.flashchunk.cassandra.CassandraFlashCache"
CGROUP = "flashchunk-bench"
CHUNK_KB = 64
HOT_DATA_FRACTION = 0.3
PROFILER_ARTIFACT = "tools.profiler:async-profiler:4.2"

START = time.time()


def log(message):
    print(f"[bench-ycsb {time.time() - START:6.0f} s] {message}", file=sys.stderr, flush=True)


def run(command, check=True, capture=True, env=None):
    result = subprocess.run(command, check=False, text=True, env=env,
                            stdout=subprocess.PIPE if capture else None,
                            stderr=subprocess.STDOUT if capture else None)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {result.returncode}):\n{result.stdout or ''}")
    return result.stdout or ""


def parse_size(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)i?B?", text.strip(), re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 2560M, 2.5G)")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()])


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Node:
    """The benchmark's node: one run directory, restarted per configuration."""

    def __init__(self, directory):
        self.dir = directory
        self.native, self.storage, self.jmx = free_ports(3)
        self.yaml = os.path.join(directory, "conf", "cassandra.yaml")
        self.extra_options = os.path.join(directory, "conf", "jvm-extra.options")

    def init(self):
        run([NODE_SCRIPT, "init", self.dir, "--force", "--native-port", str(self.native),
             "--storage-port", str(self.storage), "--jmx-port", str(self.jmx)])
        with open(self.yaml) as f:
            # Cassandra's defaults for the file cache (off): the launcher's template turns it on for tests.
            self.base_yaml = "".join(line for line in f if not line.startswith(("file_cache_enabled:", "file_cache_size:")))
        self.base_yaml += "file_cache_enabled: false\n"

    def configure(self, flash_yaml):
        """Stock Cassandra when flash_yaml is None; else the agent, the loader and the flash cache block."""
        with open(self.yaml, "w") as f:
            f.write(self.base_yaml + ("\n" + flash_yaml if flash_yaml else ""))
        if flash_yaml:
            with open(self.extra_options, "w") as f:
                f.write(f"-javaagent:{AGENT_JAR}\n-Dcassandra.config.loader={LOADER}\n")
        elif os.path.exists(self.extra_options):
            os.remove(self.extra_options)

    def start(self, heap, memory_limit=None):
        command = [NODE_SCRIPT, "start", self.dir, "--heap", heap, "--wait-seconds", "300"]
        if memory_limit:
            command += ["--cgroup", CGROUP, "--memory-limit", str(memory_limit)]
        log(run(command).strip().splitlines()[-1])

    def stop(self):
        run([NODE_SCRIPT, "stop", self.dir, "--wait-seconds", "180"], check=False)

    def pid(self):
        with open(os.path.join(self.dir, "cassandra.pid")) as f:
            return int(f.read().strip())

    def nodetool(self, *arguments):
        return run([NODE_SCRIPT, "nodetool", self.dir, *arguments])

    def chunk_cache(self):
        """(requests, misses, capacity text) of nodetool info's Chunk Cache line."""
        for line in self.nodetool("info").splitlines():
            if line.startswith("Chunk Cache"):
                m = re.search(r"capacity ([^,]+), (\d+) misses, (\d+) requests", line)
                if m:
                    return int(m.group(3)), int(m.group(2)), m.group(1)
        return 0, 0, "none"


def profiler_library(args):
    """async-profiler's native library, from its Maven Central jar, extracted once into the work directory."""
    directory = os.path.join(args.work, "async-profiler")
    library = os.path.join(directory, "libasyncProfiler.so")
    if not os.path.exists(library):
        run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={PROFILER_ARTIFACT}", f"-DoutputDirectory={directory}"])
        jar = os.path.join(directory, "async-profiler-" + PROFILER_ARTIFACT.rsplit(":", 1)[1] + ".jar")
        with zipfile.ZipFile(jar) as z, z.open("linux-x64/libasyncProfiler.so") as src, open(library, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return library


class Profile:
    """CPU samples of the node (Java, native and kernel frames, per thread) while a measurement runs.

    Loads async-profiler into the running JVM with jcmd; saves OUT/profile-<name>.collapsed.xz (one
    line per stack: frames;...;leaf count; xz makes 25 MB about 250 KB) and OUT/profile-<name>.html
    (a flame graph)."""

    def __init__(self, library, pid, prefix, flame_graph=True):
        # The JVM writes the files: relative to its own working directory unless absolute.
        self.library, self.pid, self.prefix = library, pid, os.path.abspath(prefix)
        self.flame_graph = flame_graph

    def _command(self, command):
        # jcmd would split key=value pairs itself: the options go in quotes, as one argument.
        run(["jcmd", str(self.pid), "JVMTI.agent_load", self.library, f'"{command}"'])

    def __enter__(self):
        self._command("start,event=cpu,interval=1ms,threads")
        return self

    def __exit__(self, *exc):
        self._command(f"dump,file={self.prefix}.collapsed,collapsed")
        self._command(f"stop,file={self.prefix}.html" if self.flame_graph else "stop")
        collapsed = self.prefix + ".collapsed"
        if not os.path.exists(collapsed):
            raise RuntimeError(f"async-profiler wrote no {collapsed}")
        with open(collapsed, "rb") as src, lzma.open(collapsed + ".xz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(collapsed)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cgroup_memory():
    """(rss, page cache) bytes of the benchmark's memory cgroup, or (None, None) outside one."""
    try:
        stats = dict(line.split() for line in open(f"/sys/fs/cgroup/memory/{CGROUP}/memory.stat"))
        return int(stats["total_rss"]), int(stats["total_cache"])
    except (OSError, KeyError, ValueError):
        return None, None


def disk_of(path):
    """The /proc/diskstats name of the whole disk holding path."""
    device = os.stat(path).st_dev
    major, minor = os.major(device), os.minor(device)
    name = None
    with open("/proc/diskstats") as f:
        for line in f:
            parts = line.split()
            if int(parts[0]) == major and int(parts[1]) == minor:
                name = parts[2]
    if name is None:
        raise RuntimeError(f"no /proc/diskstats entry for {path} ({major}:{minor})")
    parent = os.path.basename(os.path.dirname(os.path.realpath(f"/sys/class/block/{name}")))
    return parent if os.path.exists(f"/sys/block/{parent}") else name


def disk_read_bytes(disk):
    with open("/proc/diskstats") as f:
        for line in f:
            parts = line.split()
            if parts[2] == disk:
                return int(parts[5]) * 512
    raise RuntimeError(f"disk {disk} vanished from /proc/diskstats")


def oom_reason(node):
    """Why the node is gone, if the memory cgroup's OOM killer took it."""
    try:
        pid = node.pid()
    except (OSError, ValueError):
        return None
    if os.path.exists(f"/proc/{pid}"):
        return None
    kernel = run(["dmesg"], check=False)
    if re.search(rf"Memory cgroup out of memory: Killed process {pid}\b", kernel):
        return f"Cassandra (pid {pid}) was killed by the memory cgroup's OOM killer: its RSS outgrew the limit"
    return f"Cassandra (pid {pid}) died"


def drop_page_cache():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


class ReadAhead:
    """Sets the data disk's read_ahead_kb for the run and restores it (Linux fixes it at open)."""

    def __init__(self, disk, kb):
        self.path = f"/sys/block/{disk}/queue/read_ahead_kb"
        self.kb = kb
        self.saved = None

    def __enter__(self):
        with open(self.path) as f:
            self.saved = f.read().strip()
        if self.kb is not None:
            with open(self.path, "w") as f:
                f.write(str(self.kb))
        return self

    def __exit__(self, *exc):
        with open(self.path, "w") as f:
            f.write(self.saved)

    def current(self):
        with open(self.path) as f:
            return int(f.read().strip())


YCSB_LINE = re.compile(r"^\[(\w[\w-]*)\], ([^,]+), ([-0-9.eE]+)$")


def parse_ycsb(output):
    stats = {}
    for line in output.splitlines():
        m = YCSB_LINE.match(line.strip())
        if m:
            stats[(m.group(1), m.group(2))] = float(m.group(3))
    return stats


def ycsb_clients(args, node, phase, workload, keyspace, seconds, target, clients, threads, extra=(), raw=False):
    """Runs YCSB client processes at once; returns their parsed outputs (their text when raw)."""
    base = [YCSB_SCRIPT, phase, "--native-port", str(node.native), "-P", os.path.join(WORKLOADS, workload),
            "-p", f"recordcount={args.records}", "-p", f"fieldlength={args.field_length}",
            "-p", f"cassandra.keyspace={keyspace}", "-p", f"flashchunk.compression.chunkkb={CHUNK_KB}",
            "-threads", str(threads), *extra]
    if seconds:
        base += ["-p", f"maxexecutiontime={seconds}", "-p", "operationcount=1000000000"]
    processes = []
    for client in range(clients):
        command = list(base)
        if target:
            command += ["-target", str(max(1, target // clients))]
        if phase == "load" and clients > 1:
            share = args.records // clients
            command += ["-p", f"insertstart={client * share}",
                        "-p", f"insertcount={share if client < clients - 1 else args.records - client * share}"]
        env = dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1")
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                          env=env))
    outputs = []
    for p in processes:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"YCSB {phase} failed (exit {p.returncode}):\n{out[-3000:]}")
        outputs.append(parse_ycsb(out) if not raw else out)
    return outputs


def combine(outputs):
    """One result from several clients: throughputs add, latencies are weighted by operations, p99 the worst."""
    result = {"ops_per_s": sum(o.get(("OVERALL", "Throughput(ops/sec)"), 0) for o in outputs)}
    for op in ("READ", "UPDATE", "INSERT"):
        count = sum(o.get((op, "Operations"), 0) for o in outputs)
        failed = sum(o.get((op + "-FAILED", "Operations"), 0) for o in outputs)
        if count == 0 and failed == 0:
            continue
        key = op.lower()
        result[f"{key}_ops"] = int(count)
        result[f"{key}_failed"] = int(failed)
        if count:
            result[f"{key}_avg_ms"] = sum(o.get((op, "AverageLatency(us)"), 0) * o.get((op, "Operations"), 0)
                                          for o in outputs) / count / 1000
            result[f"{key}_p99_ms"] = max(o.get((op, "99thPercentileLatency(us)"), 0) for o in outputs) / 1000
    return result


KEYSPACES = {"ycsb": ["--compressor", "LZ4Compressor", "--chunk-kb", str(CHUNK_KB)], "ycsb_raw": ["--no-compression"]}


def load_dataset(args, node, keyspaces):
    log(f"loading {args.records:,} records of 10 x {args.field_length} B into {', '.join(keyspaces)} (ycsb: LZ4 in "
        f"{CHUNK_KB} KiB chunks; ycsb_raw: uncompressed), then compacting each to one SSTable")
    node.configure(None)
    node.start(args.heap)
    for keyspace in keyspaces:
        options = KEYSPACES[keyspace]
        run([YCSB_SCRIPT, "create-table", "--native-port", str(node.native), "--keyspace", keyspace, "--drop",
             *options])
        started = time.time()
        ycsb_clients(args, node, "load", "paper-read100", keyspace, None, None, 2, 4)
        node.nodetool("flush", keyspace)
        log(f"{keyspace}: loaded in {time.time() - started:.0f} s; compacting")
        node.nodetool("compact", keyspace)
        sizes = node.nodetool("tablestats", f"{keyspace}.usertable")
        m = re.search(r"Space used \(live\): (\d+)", sizes)
        ssts = re.search(r"SSTable count: (\d+)", sizes)
        log(f"{keyspace}: {int(m.group(1)) / 2**20:.0f} MiB on disk in {ssts.group(1)} SSTable(s)"
            if m and ssts else f"{keyspace}: tablestats unreadable")
    node.stop()


def pristine_dir(args, keyspace):
    return os.path.join(args.work, "pristine", keyspace)


def keep_pristine(args, node, keyspace):
    """Hard links to the freshly compacted SSTables (immutable files): every configuration starts from them."""
    target = pristine_dir(args, keyspace)
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    run(["cp", "-al", os.path.join(node.dir, "data", keyspace), target])


def restore_dataset(args, node, keyspaces):
    """The paper starts each run from the one pre-populated SSTable: undo the updates, flushes and compactions
    of earlier runs, and drop the commit log, hints and saved key cache they left (the node is stopped cleanly,
    so its memtables were flushed)."""
    for keyspace in keyspaces:
        live = os.path.join(node.dir, "data", keyspace)
        shutil.rmtree(live, ignore_errors=True)
        run(["cp", "-al", pristine_dir(args, keyspace), live])
    for sub in ("commitlog", "hints", "saved_caches"):
        shutil.rmtree(os.path.join(node.dir, sub), ignore_errors=True)
        os.makedirs(os.path.join(node.dir, sub), exist_ok=True)


def hot_set_bytes(args):
    """Chunk bytes the hot records touch: a record of R bytes spans 1 + (R - 1) / C chunks of C bytes on average."""
    record = 10 * args.field_length
    chunk = CHUNK_KB << 10
    return int(HOT_DATA_FRACTION * args.records * chunk * (1 + (record - 1) / chunk))


def configurations(args):
    m = args.memory
    table = {
        "base-c-M": ("baseline, compressed, M", "ycsb", m, None),
        "base-c-2M": ("baseline, compressed, 2M", "ycsb", 2 * m, None),
        "base-u-M": ("baseline, uncompressed, M", "ycsb_raw", m, None),
        "flash-1x": ("flash cache 1x hot set, M", "ycsb", m, 1),
        "flash-2x": ("flash cache 2x hot set, M", "ycsb", m, 2),
        "flash-4x": ("flash cache 4x hot set, M", "ycsb", m, 4),
        # Not in the default sweep: hits read flash in Cassandra's thread (read_in_caller_thread: true).
        "flash-4x-sync": ("flash cache 4x hot set, caller-thread reads, M", "ycsb", m, 4),
        # Not in the default sweep: the baseline as an untuned node runs it, at the disk's own read_ahead_kb
        # (the run's --read-ahead-kb is restored for the next configuration).
        "base-c-M-ra": ("baseline, compressed, M, machine readahead", "ycsb", m, None),
    }
    unknown = [c for c in args.configs if c not in table]
    if unknown:
        raise SystemExit(f"bench-ycsb: unknown configuration(s) {unknown}; known: {list(table)}")
    return [(name, *table[name]) for name in args.configs]


def flash_yaml(device, capacity, caller_thread_reads=False):
    # strict: a flash configuration whose cache cannot start must not be measured as one.
    return (f"chunk_cache_class: {CACHE_CLASS}\nflash_chunk_cache:\n  strict: true\n  devices:\n    - path: {device}\n"
            f"      capacity: {capacity}\n" + ("  read_in_caller_thread: true\n" if caller_thread_reads else ""))


def measure_configuration(args, node, disk, name, label, keyspace, memory, hot_multiple, workload, out, rnd=0):
    device = os.path.join(args.work, "flash.img")
    if os.path.exists(device):
        os.remove(device)
    if hot_multiple:
        # The index gets 90% of the device (the reserve); checkpoint areas take a little more.
        capacity = (int(hot_multiple * hot_set_bytes(args) / 0.9) + (64 << 20)) // 4096 * 4096
        with open(device, "wb") as f:
            f.truncate(capacity)
        node.configure(flash_yaml(device, capacity, name.endswith("-sync")))
    else:
        node.configure(None)
    restore_dataset(args, node, [keyspace])
    drop_page_cache()
    # Linux copies read_ahead_kb into each file when it is opened: set before the node opens its SSTables.
    with ReadAhead(disk, args.machine_read_ahead_kb if name.endswith("-ra") else None):
        node.start(args.heap, memory)
        measure_started_node(args, node, disk, name, label, keyspace, memory, hot_multiple, workload, out, rnd)


def measure_started_node(args, node, disk, name, label, keyspace, memory, hot_multiple, workload, out, rnd):
    try:
        pid = node.pid()
        log(f"{label} ({workload}): warming up {args.warmup} s")
        ycsb_clients(args, node, "run", workload, keyspace, args.warmup, None, args.clients, args.threads)
        for target in args.targets:
            cpu0, disk0, (req0, miss0, capacity) = cpu_seconds(pid), disk_read_bytes(disk), node.chunk_cache()
            started = time.time()
            profiled = args.profile and target == args.targets[-1]
            suffix = f"-round{rnd + 1}" if args.repeat > 1 else ""
            # A flame graph (600 KB) of the first round only; every round's stacks feed the report.
            with (Profile(profiler_library(args), pid, os.path.join(out, f"profile-{workload}-{name}{suffix}"), rnd == 0)
                  if profiled else contextlib.nullcontext()):
                texts = ycsb_clients(args, node, "run", workload, keyspace, args.measure, target,
                                     args.clients, args.threads, extra=STATUS_OPTIONS, raw=True)
            elapsed = time.time() - started
            cpu1, disk1, (req1, miss1, _) = cpu_seconds(pid), disk_read_bytes(disk), node.chunk_cache()
            result = combine([parse_ycsb(t) for t in texts])
            result.update(settled(texts))
            requests = req1 - req0
            result.update({
                "config": name, "label": label, "workload": workload, "target": target or 0, "round": rnd,
                "memory_bytes": memory, "flash_hot_multiple": hot_multiple or 0, "chunk_cache_capacity": capacity,
                "seconds": round(elapsed, 1), "cassandra_cpu": (cpu1 - cpu0) / elapsed,
                "read_ahead_kb": ReadAhead(disk, None).current(),
                "disk_read_mb_s": (disk1 - disk0) / elapsed / 1e6,
                "chunk_cache_hit_ratio": (requests - (miss1 - miss0)) / requests if requests else None,
            })
            rss, page_cache = cgroup_memory()
            result["rss_mib"] = rss and round(rss / 2**20)
            result["page_cache_mib"] = page_cache and round(page_cache / 2**20)
            ops = result["ops_per_s"]
            result["cpu_ms_per_op"] = result["cassandra_cpu"] * 1000 / ops if ops else None
            with open(os.path.join(out, "raw.jsonl"), "a") as f:
                f.write(json.dumps(result) + "\n")
            hit = result["chunk_cache_hit_ratio"]
            log(f"{label}, target {target or 'max'}: {ops:,.0f} ops/s, read avg "
                f"{result.get('read_avg_ms', 0):.2f} ms p99 {result.get('read_p99_ms', 0):.1f} ms, Cassandra CPU "
                f"{result['cassandra_cpu'] * 100:.0f}%, disk {result['disk_read_mb_s']:.0f} MB/s, chunk cache hits "
                f"{'n/a' if hit is None else f'{hit:.2f}'}, RSS {result['rss_mib']} MiB, page cache {result['page_cache_mib']} MiB")
        if args.restart_seconds:
            measure_restart(args, node, name, label, keyspace, memory, hot_multiple, workload, out, rnd)
    finally:
        node.stop()


STATUS_OPTIONS = ("-s", "-p", "status.interval=5")
STATUS_LINE = re.compile(r" (\d+) sec: \d+ operations; ([\d.]+) current ops/sec")
# YCSB's status line ends with each operation's histogram over the last interval (latencies in us).
INTERVAL_READS = re.compile(r"\[READ: Count=(\d+), Max=\d+, Min=\d+, Avg=([\d.]+)")
# Each measurement starts new client JVMs; their first seconds run the driver's code cold.
CLIENT_SETTLE_S = 10


def status_intervals(texts):
    """[(seconds, ops/s, reads, read avg ms)] per status interval, summed over the clients' texts (each
    client reports every 5 s from its own start; their windows line up to within a second)."""
    sums = {}
    for text in texts:
        for line in text.splitlines():
            m = STATUS_LINE.search(line)
            if not m:
                continue
            reads = INTERVAL_READS.search(line)
            count, avg_us = (int(reads.group(1)), float(reads.group(2))) if reads else (0, 0.0)
            ops, total_reads, latency_us = sums.get(int(m.group(1)), (0.0, 0, 0.0))
            sums[int(m.group(1))] = (ops + float(m.group(2)), total_reads + count, latency_us + count * avg_us)
    return [(t, ops, count, latency_us / count / 1000 if count else None)
            for t, (ops, count, latency_us) in sorted(sums.items())]


def settled(texts):
    """Throughput and average read latency without the clients' first CLIENT_SETTLE_S seconds, and the timeline."""
    intervals = status_intervals(texts)
    later = [(ops, count, avg) for t, ops, count, avg in intervals if t > CLIENT_SETTLE_S]
    reads = sum(count for _, count, _ in later)
    return {"timeline": [[t, round(ops, 1), avg and round(avg, 3)] for t, ops, _, avg in intervals],
            "ops_per_s_settled": statistics.mean(ops for ops, _, _ in later) if later else None,
            "read_avg_ms_settled": sum(count * avg for _, count, avg in later if count) / reads if reads else None}


def measure_restart(args, node, name, label, keyspace, memory, hot_multiple, workload, out, rnd):
    """Throughput over time right after a clean restart with the page cache dropped: how warm each cache stays."""
    node.stop()
    drop_page_cache()
    node.start(args.heap, memory)
    log(f"{label} ({workload}): after a restart, {args.restart_seconds} s")
    texts = ycsb_clients(args, node, "run", workload, keyspace, args.restart_seconds, None, args.clients, args.threads,
                         extra=STATUS_OPTIONS, raw=True)
    timeline = {t: ops for t, ops, _, _ in status_intervals(texts)}
    overall = combine([parse_ycsb(t) for t in texts])
    row = {"phase": "restart", "config": name, "label": label, "workload": workload, "round": rnd,
           "seconds": args.restart_seconds,
           "ops_per_s": overall["ops_per_s"], "read_avg_ms": overall.get("read_avg_ms"),
           "timeline": sorted((t, ops) for t, ops in timeline.items() if t <= args.restart_seconds), "flash_hot_multiple": hot_multiple or 0}
    with open(os.path.join(out, "raw.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    log(f"{label} after a restart: {overall['ops_per_s']:,.0f} ops/s over the first {args.restart_seconds} s")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--work", default=os.path.join(REPO, "target", "bench-ycsb"),
                   help="node, data and flash device (default target/bench-ycsb; reused when --reuse-data)")
    p.add_argument("--records", type=int, default=90000)
    p.add_argument("--field-length", type=int, default=6400)
    p.add_argument("--heap", default="768M")
    p.add_argument("--memory", type=parse_size, default=parse_size("1600M"), help="M: the cgroup memory limit")
    p.add_argument("--targets", default="1000,2000,3000,0", help="YCSB target ops/s, 0 = unthrottled")
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--threads", type=int, default=4, help="per client")
    # After 60 s the flash cache was still filling: hit ratio 0.91 against 1.00 after 180 s, and Caffeine's
    # maintenance took 5% of the node's CPU against 1% (docs/ycsb-benchmark.md, runs 7 and 8).
    p.add_argument("--warmup", type=int, default=180, help="seconds of YCSB before the first measurement")
    p.add_argument("--measure", type=int, default=30)
    p.add_argument("--workloads", default="paper-read100,paper-read80-update20")
    p.add_argument("--configs", default="base-c-M,base-c-2M,base-u-M,flash-1x,flash-2x,flash-4x")
    p.add_argument("--read-ahead-kb", default="16",
                   help="the data disk's read_ahead_kb during the run ('machine' leaves it); restored after")
    p.add_argument("--restart-seconds", type=int, default=40,
                   help="after measuring, restart (page cache dropped) and record throughput over this long; 0: skip")
    p.add_argument("--reuse-data", action="store_true", help="keep the loaded node from an earlier run of the same size")
    p.add_argument("--repeat", type=int, default=1,
                   help="run every configuration this many times, in rounds (A B A B ...: drift hits all alike); "
                        "the report gives medians, ranges and per-round ratios")
    p.add_argument("--profile", action="store_true",
                   help="sample the node's CPU with async-profiler during the last target (profile-*.collapsed.xz, "
                        "profile-*.html; scripts/bench_profile_report.py sums them up)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error(f"--repeat must be at least 1, got {args.repeat}")
    args.targets = [int(t) for t in args.targets.split(",")]
    args.workloads = args.workloads.split(",")
    args.configs = args.configs.split(",")
    args.read_ahead_kb = None if args.read_ahead_kb == "machine" else int(args.read_ahead_kb)
    # The node runs in its own directory: a relative flash device path in its yaml would point elsewhere.
    args.work = os.path.abspath(args.work)
    return args


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("bench-ycsb: needs root (cgroup memory limits, dropping the page cache, read_ahead_kb)")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    configs = configurations(args)
    node = Node(os.path.join(args.work, "node"))
    stamp = os.path.join(args.work, "dataset.json")
    keyspaces = sorted({keyspace for _, _, keyspace, _, _ in configs})
    node.init()
    disk = disk_of(node.dir)
    with ReadAhead(disk, args.read_ahead_kb) as read_ahead:
        args.machine_read_ahead_kb = int(read_ahead.saved)
        loaded = json.load(open(stamp)) if args.reuse_data and os.path.exists(stamp) else {}
        if loaded.get("records") == args.records and loaded.get("field_length") == args.field_length:
            reused = [k for k in loaded.get("keyspaces", []) if os.path.isdir(pristine_dir(args, k))]
        else:
            reused = []
        missing = [k for k in keyspaces if k not in reused]
        if reused:
            log(f"reusing the loaded data of an earlier run: {', '.join(reused)}")
        if not reused:
            for sub in ("data", "commitlog", "hints", "saved_caches"):
                shutil.rmtree(os.path.join(node.dir, sub), ignore_errors=True)
            shutil.rmtree(os.path.join(args.work, "pristine"), ignore_errors=True)
        if missing:
            if os.path.exists(stamp):
                os.remove(stamp)
            restore_dataset(args, node, reused)
            load_dataset(args, node, missing)
            for keyspace in missing:
                keep_pristine(args, node, keyspace)
            json.dump({"records": args.records, "field_length": args.field_length, "keyspaces": reused + missing},
                      open(stamp, "w"))
        meta = {"records": args.records, "field_length": args.field_length, "heap": args.heap,
                "memory_bytes": args.memory, "hot_set_bytes": hot_set_bytes(args), "targets": args.targets,
                "clients": args.clients, "threads": args.threads, "warmup_s": args.warmup,
                "measure_s": args.measure, "disk": disk, "read_ahead_kb": read_ahead.current(),
                "machine_read_ahead_kb": int(read_ahead.saved),
                "chunk_kb": CHUNK_KB, "configs": args.configs, "workloads": args.workloads, "rounds": args.repeat}
        json.dump(meta, open(os.path.join(args.out, "setup.json"), "w"), indent=1)
        log(f"hot set {hot_set_bytes(args) / 2**20:.0f} MiB of chunks; M = {args.memory / 2**20:.0f} MiB; "
            f"{disk} read_ahead_kb {read_ahead.current()}")
        for rnd in range(args.repeat):
            if args.repeat > 1:
                log(f"round {rnd + 1} of {args.repeat}")
            measure_round(args, node, disk, configs, rnd)
    log("done")


def measure_round(args, node, disk, configs, rnd):
    for workload in args.workloads:
        for name, label, keyspace, memory, multiple in configs:
            try:
                measure_configuration(args, node, disk, name, label, keyspace, memory, multiple, workload,
                                      args.out, rnd)
            except (RuntimeError, OSError) as e:
                # One configuration failing (e.g. the node killed by the cgroup's OOM killer) is a result too.
                reason = oom_reason(node) or str(e).splitlines()[0]
                log(f"{label} ({workload}) FAILED: {reason}")
                with open(os.path.join(args.out, "raw.jsonl"), "a") as f:
                    f.write(json.dumps({"config": name, "label": label, "workload": workload, "round": rnd,
                                        "error": reason}) + "\n")
                node.stop()


def self_test():
    """Checks the parsing of YCSB's output on two clients' synthetic status lines and summaries, and that
    a flash configuration is one the node cannot silently run without."""
    import benchlib
    failures = []
    check = benchlib.checker(failures)

    def status(t, ops, reads, avg_us):
        return (f"2026-11-22 11:40:{t:02d}:123 {t} sec: {t * 100} operations; {ops} current ops/sec; est completion "
                f"in 1 day [READ: Count={reads}, Max=90000, Min=1000, Avg={avg_us}, 90=1, 99=2, 99.9=3, 99.99=4]")
    client = "\n".join([status(5, 400.0, 2000, 9000.5), status(10, 800.0, 4000, 4000),
                        status(15, 1000.0, 5000, 3000), status(20, 1000.0, 5000, 5000),
                        "[OVERALL], Throughput(ops/sec), 800.0", "[READ], Operations, 16000",
                        "[READ], AverageLatency(us), 4500.0", "[READ], 99thPercentileLatency(us), 20000"])
    intervals = status_intervals([client, client])
    check("intervals", len(intervals), 4)
    check("ops/s add over the clients", intervals[0][1], 800.0)
    check("reads add over the clients", intervals[0][2], 4000)
    check("interval read avg in ms", intervals[0][3], 9.0005)
    later = settled([client, client])
    check("settled throughput: after 10 s", later["ops_per_s_settled"], 2000.0)
    check("settled read avg: weighted by reads", later["read_avg_ms_settled"], 4.0)
    check("nothing settled in a short run", settled([status(5, 1.0, 1, 1)])["read_avg_ms_settled"], None)
    overall = combine([parse_ycsb(client), parse_ycsb(client)])
    check("throughput adds", overall["ops_per_s"], 1600.0)
    check("read avg from the summary", overall["read_avg_ms"], 4.5)
    work = parse_args(["--out", "unused", "--work", "relative/work"]).work
    check("--work made absolute (the node's yaml names the device by it)", work, os.path.join(os.getcwd(), "relative/work"))
    check("flash configuration is strict", "\n  strict: true\n" in flash_yaml("/flash.img", 1 << 30), True)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    main(sys.argv[1:])
