#!/usr/bin/env python3
"""The YCSB evaluation (the paper's Table II, Figures 4-7) at this machine's scale; run by scripts/bench-ycsb.sh.

One Cassandra 5.0.9 node (scripts/cassandra-node.sh) holds the YCSB data in one table per compression
(LZ4, Zstd, uncompressed), each compacted to one SSTable. Every configuration then runs on the same data,
one after the other: the node is started inside a cgroup v1 memory limit (the paper's Docker limit)
after the page cache is dropped, warmed up, measured at each YCSB target throughput with several client
processes, and then, if asked, stopped cleanly and killed, each time started again with its throughput
followed from the moment it answers CQL.

Two storage regimes:
- same disk (the paper's; the default): the SSTables and the flash cache's file share the root disk.
- capped (--storage-iops): the node's whole directory (SSTables, commit log) on a loop device of its
  own, capped through a blkio cgroup at a cloud volume's rate (capped_storage.py); the flash cache's
  file stays on the root disk, uncapped: network block storage with a local NVMe drive beside it.

For the engine's evidence: flash at 0.5x to 4x the hot set (flash-0.5x ... flash-4x) against stock
Cassandra at M, 2M and 4M; a workload whose hot set moves halfway through each measured window
(paper-read100-moving); --warmup steady (warm up until the chunk cache's hit ratio is steady, and
record when the cold cache got there: fill_s); and per measured window the flash cache's own hit
ratio, flash bytes written per admitted byte and reinsertions (deltas of its JMX counters).

Raw results go to OUT/raw.jsonl as they come; scripts/bench_ycsb_report.py makes the tables and plots.
"""
import argparse
import contextlib
import io
import json
import lzma
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass

import capped_storage
from capped_storage import Cap
import node_control
from node_control import MEMORY_CGROUP, REPO, YCSB_SCRIPT, Node, flash_yaml, log, run
import ycsb_output

WORKLOADS = os.path.join(REPO, "ycsb-workloads", "workloads")
BLKIO_CGROUP = "flashchunk-bench-io"
CHUNK_KB = 64
HOT_DATA_FRACTION = 0.3
PROFILER_ARTIFACT = "tools.profiler:async-profiler:4.2"
# With --profile, how long after CQL-ready a restarted node's CPU is sampled: where the ramp is.
RESTART_PROFILE_S = 30
STATUS_OPTIONS = ("-s", "-p", "status.interval=5")
# A kill "at a random moment under load": this many seconds of YCSB at full rate, uniformly drawn.
KILL_WINDOW_S = (5, 65)
# A kill while a cold cache fills: from this many seconds into the warm-up to its end.
KILL_COLD_EARLIEST_S = 30
RESTART_SHARE = 0.9
# --warmup steady: the chunk cache's hit ratio, taken every --steady-window s from the clients' start, is
# steady once STEADY_WINDOWS windows in a row lie within STEADY_SPREAD of each other (max - min: three
# changes in a row under a point, and no slow creep of a point per window either).
STEADY_WINDOWS = 4
STEADY_SPREAD = 0.01
# A node without a chunk cache (stock Cassandra's default: its cache is the page cache, which no counter
# shows) is steady once its throughput is: STEADY_WINDOWS windows within this share of their mean.
STEADY_THROUGHPUT_SPREAD = 0.05
# The cache counters (nodetool, sjk: JVMs of their own) are read this many seconds before a measured window opens.
SLOW_COUNTERS_LEAD_S = 20
# A workload whose file sets this moves its hot set (MovingHotspotGenerator); the harness sets the second.
MOVE_SETTING = "flashchunk.hotspot.moveafterseconds"


def parse_size(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)i?B?", text.strip(), re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 2560M, 2.5G)")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()])


# ---------------------------------------------------------------- what is measured

@dataclass(frozen=True)
class Table:
    keyspace: str
    description: str
    create_options: tuple


TABLES = {
    "lz4": Table("ycsb", f"LZ4, {CHUNK_KB} KiB chunks", ("--compressor", "LZ4Compressor", "--chunk-kb", str(CHUNK_KB))),
    "zstd": Table("ycsb_zstd", f"Zstd level 3 (Cassandra's default), {CHUNK_KB} KiB chunks",
                  ("--compressor", "ZstdCompressor", "--chunk-kb", str(CHUNK_KB))),
    "zstd-9": Table("ycsb_zstd9", f"Zstd level 9, {CHUNK_KB} KiB chunks",
                    ("--compressor", "ZstdCompressor", "--chunk-kb", str(CHUNK_KB), "--compression-level", "9")),
    "raw": Table("ycsb_raw", "uncompressed", ("--no-compression",)),
}


@dataclass(frozen=True)
class Config:
    """One way of running the node: stock Cassandra or the flash cache, at a multiple of M."""
    name: str
    label: str
    memory_factor: int = 1
    hot_multiple: float = 0  # the flash device holds this many hot sets (0.5: half of one); 0: stock Cassandra
    table: str = None  # a table of its own (else the run's --tables)
    machine_read_ahead: bool = False
    flash_settings: tuple = ()  # extra lines of the flash_chunk_cache block
    device_settings: tuple = ()  # extra lines of its device's entry
    other_jar: bool = False  # the agent jar of --other-jar, not this tree's
    node_settings: tuple = ()  # extra lines of cassandra.yaml, Cassandra's own settings
    jvm_options: tuple = ()  # JVM options the node adds last
    capped_second_device: bool = False  # the flash split in two devices, the second on the capped data volume
    # the flash split in two devices, the second a loop device of its own, capped (--slowed-iops) when the
    # warm-up ends: a device that slows once full of hot chunks (needs --warmup steady and a capped volume)
    slowed_second_device: bool = False

    @property
    def flash(self):
        return self.hot_multiple > 0


CONFIGS = {c.name: c for c in [
    Config("base-c-M", "baseline at M"),
    Config("base-c-2M", "baseline at 2M", memory_factor=2),
    Config("base-c-4M", "baseline at 4M", memory_factor=4),
    Config("base-u-M", "baseline, uncompressed table, M", table="raw"),
    # Not in the default sweep: flash smaller than the hot set (engine-evidence: what a cache too small does).
    Config("flash-0.5x", "flash cache 0.5x hot set, M", hot_multiple=0.5),
    Config("flash-1x", "flash cache 1x hot set, M", hot_multiple=1),
    Config("flash-2x", "flash cache 2x hot set, M", hot_multiple=2),
    Config("flash-4x", "flash cache 4x hot set, M", hot_multiple=4),
    # Not in the default sweep: hits read flash in Cassandra's thread.
    Config("flash-4x-sync", "flash cache 4x hot set, caller-thread reads, M", hot_multiple=4,
           flash_settings=("read_in_caller_thread: true",)),
    # Not in the default sweep: hits read in Cassandra's thread through io_uring rings.
    Config("flash-4x-uring", "flash cache 4x hot set, engine io_uring, M", hot_multiple=4,
           device_settings=("engine: io_uring",)),
    # Not in the default sweep: no overflow read of a hit's next chunk (one flash read per chunk).
    Config("flash-4x-single", "flash cache 4x hot set, no overflow read, M", hot_multiple=4,
           flash_settings=("overflow_read: false",)),
    # Not in the default sweep: checkpoints on the clock alone (the policy before checkpoint_change_percent).
    Config("flash-4x-clock", "flash cache 4x hot set, checkpoints on the clock only, M", hot_multiple=4,
           flash_settings=("checkpoint_change_percent: 0",)),
    # Not in the default sweep: the same with another build's agent jar (--other-jar), paired with flash-4x.
    Config("flash-4x-other", "flash cache 4x hot set, M, other jar", hot_multiple=4, other_jar=True),
    # Not in the default sweep: Cassandra's key cache saved every 30 s (not every 4 hours), so that a restart,
    # even after a SIGKILL, loads it rather than reading the partition index through a cold page cache.
    Config("flash-4x-keys", "flash cache 4x hot set, key cache saved every 30 s, M", hot_multiple=4,
           node_settings=("key_cache_save_period: 30s",)),
    # Not in the default sweep: the JIT's C2 thresholds at a quarter of JDK 17's (a method compiled
    # sooner after a restart), for the ramp (issue 39).
    Config("flash-4x-jit-sooner", "flash cache 4x hot set, C2 thresholds x0.25, M", hot_multiple=4,
           jvm_options=("-XX:CompileThresholdScaling=0.25",)),
    # Not in the default sweep: the node reads its own tables for 30 s before it starts its clients
    # (warm_up_before_clients), so that the JIT has compiled the read path when they come (issue 39).
    Config("flash-4x-warm", "flash cache 4x hot set, 30 s warm-up before clients, M", hot_multiple=4,
           flash_settings=("warm_up_before_clients: 30s",)),
    Config("flash-4x-warm60", "flash cache 4x hot set, 60 s warm-up before clients, M", hot_multiple=4,
           flash_settings=("warm_up_before_clients: 60s",)),
    # Not in the default sweep: the 30 s warm-up with --other-jar (another build's warm-up), paired with flash-4x-warm.
    Config("flash-4x-warm-other", "flash cache 4x hot set, 30 s warm-up before clients, M, other jar", hot_multiple=4,
           flash_settings=("warm_up_before_clients: 30s",), other_jar=True),
    # Not in the default sweep: chunks stored LZ4-compressed on flash (chunks_on_flash), at half the hot
    # set: the same flash holds more chunks, each hit decompressed (issue 39).
    Config("flash-0.5x-lz4", "flash cache 0.5x hot set, chunks stored compressed, M", hot_multiple=0.5,
           flash_settings=("chunks_on_flash: compressed",)),
    Config("flash-4x-lz4", "flash cache 4x hot set, chunks stored compressed, M", hot_multiple=4,
           flash_settings=("chunks_on_flash: compressed",)),
    # Not in the default sweep: two C2 compiler threads rather than JDK 17's one on 2 cores, for the ramp.
    Config("flash-4x-jit-threads", "flash cache 4x hot set, 2 C2 compiler threads, M", hot_multiple=4,
           jvm_options=("-XX:CICompilerCount=3",)),
    # Not in the default sweep: flash 2x split over two devices, the second a file on the capped data volume
    # (its reads and writes share the cap with the data's), hot chunks moved off the loaded one (issue 40).
    Config("flash-2x-two", "flash cache 2x hot set on two devices, one capped, M", hot_multiple=2,
           capped_second_device=True),
    # Not in the default sweep: the same with no hot chunk moved.
    Config("flash-2x-two-still", "flash cache 2x hot set on two devices, one capped, no moves, M", hot_multiple=2,
           capped_second_device=True, flash_settings=("hot_chunk_move_rate: 0B/s",)),
    # Not in the default sweep: the same with --other-jar (an engine that balanced by read counts, before moves).
    Config("flash-2x-two-other", "flash cache 2x hot set on two devices, one capped, other jar, M", hot_multiple=2,
           capped_second_device=True, other_jar=True),
    # Not in the default sweep: flash 2x split over two devices of one speed, the second capped when the
    # warm-up ends, its hot chunks moved off it (issue 40); the devices' reads sampled after the cap.
    Config("flash-2x-slowed", "flash cache 2x hot set on two devices, one capped after the warm-up, M", hot_multiple=2,
           slowed_second_device=True),
    # Not in the default sweep: the same with no hot chunk moved.
    Config("flash-2x-slowed-still", "flash cache 2x hot set on two devices, one capped after the warm-up, no moves, M",
           hot_multiple=2, slowed_second_device=True, flash_settings=("hot_chunk_move_rate: 0B/s",)),
    # Not in the default sweep: the same, moving four times the default's bytes a second.
    Config("flash-2x-slowed-32m", "flash cache 2x hot set on two devices, one capped after the warm-up, moves 32 MiB/s, M",
           hot_multiple=2, slowed_second_device=True, flash_settings=("hot_chunk_move_rate: 32MiB/s",)),
    # Not in the default sweep: the baseline as an untuned node runs it, at the disk's own read_ahead_kb.
    Config("base-c-M-ra", "baseline at M, machine readahead", machine_read_ahead=True),
]}


@dataclass(frozen=True)
class Case:
    """Where a configuration runs: the table, the data device's cap (None: the same disk as the flash
    file), the workload and the round."""
    table: str
    cap: Cap
    workload: str
    round: int

    def fields(self):
        return {"table": self.table, "workload": self.workload, "round": self.round,
                "cap_iops": None if self.cap is None else self.cap.iops,
                "cap_mib_s": None if self.cap is None else self.cap.mib_s}

    def describe(self):
        return (f"{self.workload}, {self.table}, "
                f"{'same disk' if self.cap is None else 'data ' + self.cap.label()}")


def hot_set_bytes(args):
    """Chunk bytes the hot records touch: a record of R bytes spans 1 + (R - 1) / C chunks of C bytes on average.
    The zipfian workload has no hot set of its own: its flash sizes are multiples of this one too."""
    record = 10 * args.field_length
    chunk = CHUNK_KB << 10
    return int(HOT_DATA_FRACTION * args.records * chunk * (1 + (record - 1) / chunk))


def flash_capacity(args, hot_multiple):
    """The flash device's bytes for hot_multiple hot sets (a fraction too), in whole 4 KiB blocks."""
    # The index gets 90% of the device (the reserve); checkpoint areas take a little more.
    return (int(hot_multiple * hot_set_bytes(args) / 0.9) + (64 << 20)) // 4096 * 4096


def chunk_bytes_of(table):
    """Bytes of one cached chunk of a table: Cassandra caches compressed tables' chunks decompressed, at the
    chunk length; an uncompressed table's buffer size is Cassandra's own choice (None: unknown)."""
    return None if table == "raw" else CHUNK_KB << 10


def moves_hot_set(workload):
    """Whether a workload file sets MOVE_SETTING (its hot set moves once, by time)."""
    try:
        with open(os.path.join(WORKLOADS, workload)) as f:
            return any(line.strip().startswith(MOVE_SETTING + "=") for line in f)
    except OSError:
        return False


def move_options(workload, move_after):
    """YCSB options placing a moving workload's move at move_after s of the clients' run (0: moved from the
    start; None: never); none for a workload whose hot set stays."""
    if not moves_hot_set(workload):
        return ()
    return ("-p", f"{MOVE_SETTING}={-1 if move_after is None else move_after:g}")


def steady_point(ratios, windows=STEADY_WINDOWS, spread=STEADY_SPREAD, relative=False):
    """The index of the first window of the first STEADY_WINDOWS in a row whose hit ratios lie within
    `spread` of each other (relative: within `spread` times their mean, for throughputs), or None; a window
    without requests (None) breaks a run."""
    for first in range(len(ratios) - windows + 1):
        run = ratios[first:first + windows]
        if None not in run and max(run) - min(run) < (spread * statistics.mean(run) if relative else spread):
            return first
    return None


def steady_levels(ratios, throughputs, by_hit_ratio):
    """What a warm-up judges steadiness by: ("hit ratio", ratios, point) for a node with a chunk cache (the
    flash cache; by_hit_ratio), else ("throughput", throughputs, point), point being steady_point()'s."""
    if by_hit_ratio:
        return "hit ratio", ratios, steady_point(ratios)
    return "throughput", throughputs, steady_point(throughputs, spread=STEADY_THROUGHPUT_SPREAD, relative=True)


def steady_figures(ratios, window_s, throughputs=None, by_hit_ratio=True):
    """What a warm-up until steady found: fill_s, when the cold cache's hit ratio reached its steady level
    (the end of the steady stretch's first window), steady_detected_s (its last window's end, when the
    warm-up ended), or steady_reached False when the upper bound came first. A node without a chunk cache
    (by_hit_ratio False): by the throughputs of the same windows."""
    by, _, first = steady_levels(ratios, throughputs or [None] * len(ratios), by_hit_ratio)
    return {"steady_by": by, "steady_reached": first is not None,
            "fill_s": None if first is None else (first + 1) * window_s,
            "steady_detected_s": None if first is None else (first + STEADY_WINDOWS) * window_s,
            "warmup_run_s": len(ratios) * window_s,
            "warmup_hit_ratios": [None if r is None else round(r, 4) for r in ratios],
            "warmup_ops_per_s": [None if t is None else round(t, 1) for t in throughputs or []]}


def window_hit_ratio(before, after):
    """The chunk cache's hit ratio between two chunk_cache() readings (None without requests)."""
    requests = after["requests"] - before["requests"]
    return (requests - (after["misses"] - before["misses"])) / requests if requests > 0 else None


SUMMARY_WRITES = re.compile(r"flash writes=(\d+) \((\d+) B, reinserted (\d+)\)")


def flash_counters(bean, devices=()):
    """The flash cache's counters the per-run figures need, from its JMX bean's attributes ({} if unreadable)
    and its devices' beans (their hit reads, in order). Appended and reinserted chunks are not attributes of
    their own: they come from its Summary."""
    if not bean:
        return {}
    devices = sorted(devices, key=lambda device: str(device.get("name", "")))  # space=0, space=1, ...
    counters = {"hits": bean.get("Hits"), "misses": bean.get("Misses"), "puts": bean.get("Puts"),
                # AdmissionRefusals since 1.0; the same counter's older name for builds before it
                "not_admitted": bean.get("AdmissionRefusals", bean.get("DroppedEvictedBeforeWrite")),
                "flash_bytes_written": bean.get("FlashBytesWritten"),
                "segment_bytes_written": bean.get("SegmentBytesWritten"),
                # since CheckpointBytesWritten exists (2026-11-29); None before
                "checkpoint_bytes_written": bean.get("CheckpointBytesWritten"),
                # since hot chunks move (2026-11-30); None before
                "hot_chunks_moved": bean.get("HotChunksMoved"),
                # the last device's hit reads, with more than one device
                "last_device_hit_reads": devices[-1].get("HitReads") if len(devices) > 1 else None,
                "device_hit_reads": sum(d.get("HitReads") or 0 for d in devices) if len(devices) > 1 else None}
    m = SUMMARY_WRITES.search(bean.get("Summary") or "")
    counters["appended"], counters["reinserted"] = (int(m.group(1)), int(m.group(3))) if m else (None, None)
    return counters


def cache_figures(before, after, chunk_bytes):
    """The flash cache's figures over a measured window, from flash_counters() at both ends: its hit ratio,
    flash bytes written per admitted byte (admitted: chunks appended less those reinserted, at chunk_bytes
    each; all device writes, checkpoints included, and the sealed segments' alone), reinsertions."""
    if not before or not after:
        return {}
    d = {k: after[k] - before[k] if after.get(k) is not None and before.get(k) is not None else None
         for k in before}

    def share(part, whole):
        return part / whole if part is not None and whole else None
    hits, misses, appended, reinserted = d["hits"], d["misses"], d["appended"], d["reinserted"]
    # hot chunks moved between devices are appended too: written again, not admitted
    admitted = (appended - reinserted - (d.get("hot_chunks_moved") or 0)
                if appended is not None and reinserted is not None else None)
    admitted_bytes = admitted * chunk_bytes if admitted is not None and chunk_bytes else None
    return {"flash_hit_ratio": share(hits, hits + misses) if hits is not None and misses is not None else None,
            "flash_written_per_admitted_byte": share(d["flash_bytes_written"], admitted_bytes),
            "segment_written_per_admitted_byte": share(d["segment_bytes_written"], admitted_bytes),
            "flash_bytes_written": d["flash_bytes_written"], "segment_bytes_written": d["segment_bytes_written"],
            "checkpoint_bytes_written": d["checkpoint_bytes_written"],
            "checkpoint_share_of_flash_writes": share(d["checkpoint_bytes_written"], d["flash_bytes_written"]),
            "admitted_chunks": admitted, "reinserted": reinserted, "reinserted_share": share(reinserted, appended),
            "puts": d["puts"], "not_admitted": d["not_admitted"], "hot_chunks_moved": d.get("hot_chunks_moved"),
            "last_device_read_share": share(d.get("last_device_hit_reads"), d.get("device_hit_reads"))}


# ---------------------------------------------------------------- the machine


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The node's threads by what they do, as their names say (Linux keeps 15 characters of a name): where the CPU
# of a restart's ramp goes, second by second. The first group that matches a name takes its thread.
# Cassandra's shared pool names a worker after the stage it serves at the moment, so its stages are one
# group; a thread's CPU over an interval goes to the group of its name at the interval's end.
THREAD_GROUPS = (("jit", ("C1 CompilerThre", "C2 CompilerThre")),
                 ("gc", ("GC Thread", "G1 ", "VM Thread", "VM Periodic")),
                 ("requests", ("Native-Transpor", "ReadStage", "MutationStage", "CounterMutatio", "ViewMutationSt",
                               "RequestRespons", "AccordMigratio", "SharedPool-Wor")),
                 ("io", ("epollEventLoopG", "nioEventLoopGro", "Messaging-Event")),
                 ("flash_cache", ("flashchunk-",)))
THREAD_GROUP_NAMES = tuple(g for g, _ in THREAD_GROUPS) + ("other",)


def thread_group(name):
    return next((group for group, prefixes in THREAD_GROUPS if name.startswith(prefixes)), "other")


def thread_cpu_seconds(pid):
    """Each of the node's threads now: {(tid, start time in ticks): (name, CPU seconds so far)}; the start time
    tells a thread from a later one that took its id."""
    threads = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                text = f.read()
        except OSError:  # the thread ended
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        threads[(int(task), int(fields[19]))] = (name, (int(fields[11]) + int(fields[12])) / tick)
    return threads


def thread_group_seconds(before, after):
    """CPU seconds each thread group took between two thread_cpu_seconds samples: a thread alive at both its
    difference, one born between them all of its CPU, each under its name at the end; "ended": what the
    threads that ended between them took (the rest of the process's CPU, so only with it given)."""
    groups = dict.fromkeys(THREAD_GROUP_NAMES, 0.0)
    for key, (name, cpu) in after.items():
        groups[thread_group(name)] += cpu - before[key][1] if key in before else cpu
    return groups


def cgroup_memory():
    """(rss, page cache) bytes of the benchmark's memory cgroup, or (None, None) outside one."""
    try:
        stats = dict(line.split() for line in open(f"/sys/fs/cgroup/memory/{MEMORY_CGROUP}/memory.stat"))
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


RESOURCE_WINDOW_S = 15  # the warm node's resources, measured before the restarts


def resource_rates(before, after):
    """The node's CPU (cores) and its data device's reads a second between two clock_counters samples."""
    seconds = max(1e-6, after["at"] - before["at"])
    rates = {"cpu": round((after["cpu"] - before["cpu"]) / seconds, 3),
             "data_read_iops": round((after["data"][0] - before["data"][0]) / seconds, 1),
             "data_read_mb_s": round((after["data"][1] - before["data"][1]) / seconds / 1e6, 2)}
    if before.get("io") is not None:
        rates["cap_read_iops"] = round((after["io"]["read_ios"] - before["io"]["read_ios"]) / seconds, 1)
    if before.get("threads") is not None and after.get("threads") is not None:
        groups = thread_group_seconds(before["threads"], after["threads"])
        groups["ended"] = max(0.0, after["cpu"] - before["cpu"] - sum(groups.values()))  # ticks round apart
        rates["threads"] = {g: round(v / seconds, 3) for g, v in groups.items()}
    if before.get("clients") is not None and after.get("clients") is not None:
        # a client that ended between the samples leaves its CPU out of the second: no rate then
        rates["clients_cpu"] = round(max(0.0, after["clients"] - before["clients"]) / seconds, 3)
    return rates


def disk_reads(disk):
    """(reads completed, bytes read) of a disk since boot."""
    with open("/proc/diskstats") as f:
        for line in f:
            parts = line.split()
            if parts[2] == disk:
                return int(parts[3]), int(parts[5]) * 512
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


drop_page_cache = capped_storage.drop_page_cache


class ReadAhead:
    """Sets a disk's read_ahead_kb for the run and restores it (Linux fixes it when a file is opened)."""

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


# ---------------------------------------------------------------- YCSB clients

class YcsbRun:
    """YCSB client processes running in the background; their output is collected line by line, so a
    caller can follow their status lines, wait for a window, freeze them while the node restarts, and
    stop them. Every run still going when the harness exits is stopped (see stop_all)."""

    live = set()

    def __init__(self, args, node, phase, workload, keyspace, seconds, target, clients, threads, extra=()):
        base = [YCSB_SCRIPT, phase, "--native-port", str(node.native), "-P", os.path.join(WORKLOADS, workload),
                "-p", f"recordcount={args.records}", "-p", f"fieldlength={args.field_length}",
                "-p", f"cassandra.keyspace={keyspace}", "-p", f"flashchunk.compression.chunkkb={CHUNK_KB}",
                "-threads", str(threads), *extra]
        if seconds:
            base += ["-p", f"maxexecutiontime={seconds}", "-p", "operationcount=1000000000"]
        self.phase, self.stopped = phase, False
        self.processes, self.lines, self.readers = [], [], []
        YcsbRun.live.add(self)
        for client in range(clients):
            command = list(base)
            if target:
                command += ["-target", str(max(1, target // clients))]
            if phase == "load" and clients > 1:
                share = args.records // clients
                command += ["-p", f"insertstart={client * share}",
                            "-p", f"insertcount={share if client < clients - 1 else args.records - client * share}"]
            env = dict(os.environ, FLASHCHUNK_YCSB_NO_BUILD="1")
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            lines = []
            reader = threading.Thread(target=lambda p=process, out=lines: out.extend(p.stdout), daemon=True)
            reader.start()
            self.processes.append(process)
            self.lines.append(lines)
            self.readers.append(reader)

    def texts(self):
        """Each client's output so far."""
        return ["".join(list(lines)) for lines in self.lines]

    def running(self):
        return any(p.poll() is None for p in self.processes)

    def reached(self):
        """The last status window every client has reported (-1: none yet)."""
        return min(max((t for t in ycsb_output.windows([text])), default=-1) for text in self.texts())

    def wait_for_window(self, seconds, timeout=600):
        """Blocks until every client has closed its status window at `seconds` (or a later one)."""
        deadline = time.time() + timeout
        while True:
            if self.reached() >= seconds:
                return
            if not self.running() or time.time() > deadline:
                if not self.running():
                    for reader in self.readers:  # the last lines, the reason among them, still being read
                        reader.join(5)
                raise RuntimeError(f"YCSB {self.phase} did not report {seconds} s of status (reached {self.reached()}):\n"
                                   + self.texts()[0][-2000:])
            time.sleep(0.25)

    def signal(self, number):
        for p in self.processes:
            if p.poll() is None:
                p.send_signal(number)

    def cpu_seconds(self):
        """The client JVMs' CPU seconds so far (those still running)."""
        total = 0.0
        for p in self.processes:
            with contextlib.suppress(OSError):
                total += cpu_seconds(p.pid)
        return total

    def freeze(self):
        """Stops the client JVMs where they are (SIGSTOP): warm, and not spinning on errors while the node is down."""
        self.signal(signal.SIGSTOP)

    def resume(self):
        self.signal(signal.SIGCONT)

    def stop(self):
        """Ends the clients now (their status lines so far are kept)."""
        self.stopped = True
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)

    def wait(self):
        """Each client's whole output, once all have ended; an unexpected exit is an error."""
        for p, reader in zip(self.processes, self.readers):
            p.wait()
            reader.join()
        YcsbRun.live.discard(self)
        for p, text in zip(self.processes, self.texts()):
            if p.returncode != 0 and not self.stopped:
                raise RuntimeError(f"YCSB {self.phase} failed (exit {p.returncode}):\n{text[-3000:]}")
        return self.texts()

    @classmethod
    def stop_all(cls):
        for run in list(cls.live):
            run.stop()
            with contextlib.suppress(Exception):
                run.wait()


# ---------------------------------------------------------------- data

def load_dataset(args, node, tables):
    keyspaces = ", ".join(f"{TABLES[t].keyspace} ({TABLES[t].description})" for t in tables)
    log(f"loading {args.records:,} records of 10 x {args.field_length} B into {keyspaces}, compacting each to one SSTable")
    node.configure(None)
    node.start(args.heap)
    for name in tables:
        table = TABLES[name]
        run([YCSB_SCRIPT, "create-table", "--native-port", str(node.native), "--keyspace", table.keyspace, "--drop",
             *table.create_options])
        started = time.time()
        YcsbRun(args, node, "load", "paper-read100", table.keyspace, None, None, 2, 4).wait()
        node.nodetool("flush", table.keyspace)
        log(f"{table.keyspace}: loaded in {time.time() - started:.0f} s; compacting")
        started = time.time()
        node.nodetool("compact", table.keyspace)
        sizes = node.nodetool("tablestats", f"{table.keyspace}.usertable")
        m = re.search(r"Space used \(live\): (\d+)", sizes)
        ssts = re.search(r"SSTable count: (\d+)", sizes)
        log(f"{table.keyspace}: compacted in {time.time() - started:.0f} s; "
            + (f"{int(m.group(1)) / 2**20:.0f} MiB on disk in {ssts.group(1)} SSTable(s)" if m and ssts
               else "tablestats unreadable"))
    node.stop()


class Dataset:
    """The loaded tables under a root directory (the root disk, or the capped volume): the node's run
    directory, hard links to each freshly compacted table, and a stamp saying what was loaded."""

    def __init__(self, args, root):
        self.args, self.root = args, root
        self.stamp = os.path.join(root, "dataset.json")

    def pristine(self, keyspace):
        return os.path.join(self.root, "pristine", keyspace)

    def prepare(self, node, tables):
        """Loads what an earlier run did not leave (with --reuse-data), else everything."""
        args = self.args
        loaded = json.load(open(self.stamp)) if args.reuse_data and os.path.exists(self.stamp) else {}
        reused = []
        if loaded.get("records") == args.records and loaded.get("field_length") == args.field_length:
            reused = [t for t in loaded.get("tables", []) if os.path.isdir(self.pristine(TABLES[t].keyspace))]
        missing = [t for t in tables if t not in reused]
        if reused:
            log(f"reusing the loaded data of an earlier run: {', '.join(reused)}")
        else:
            for sub in ("data", "commitlog", "hints", "saved_caches"):
                shutil.rmtree(os.path.join(node.dir, sub), ignore_errors=True)
            shutil.rmtree(os.path.join(self.root, "pristine"), ignore_errors=True)
        if missing:
            if os.path.exists(self.stamp):
                os.remove(self.stamp)
            self.restore(node, reused)
            load_dataset(args, node, missing)
            for table in missing:
                self.keep(node, TABLES[table].keyspace)
            json.dump({"records": args.records, "field_length": args.field_length, "tables": reused + missing},
                      open(self.stamp, "w"))

    def keep(self, node, keyspace):
        """Hard links to the freshly compacted SSTables (immutable files): every configuration starts from them."""
        target = self.pristine(keyspace)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        run(["cp", "-al", os.path.join(node.dir, "data", keyspace), target])

    def restore(self, node, tables):
        """The paper starts each run from the one pre-populated SSTable: undo the updates, flushes and compactions
        of earlier runs, and drop the commit log, hints and saved key cache they left."""
        for name in tables:
            keyspace = TABLES[name].keyspace
            live = os.path.join(node.dir, "data", keyspace)
            shutil.rmtree(live, ignore_errors=True)
            run(["cp", "-al", self.pristine(keyspace), live])
        for sub in ("commitlog", "hints", "saved_caches"):
            shutil.rmtree(os.path.join(node.dir, sub), ignore_errors=True)
            os.makedirs(os.path.join(node.dir, sub), exist_ok=True)

    def largest_data_file(self, table):
        files = [os.path.join(d, f) for d, _, names in os.walk(self.pristine(TABLES[table].keyspace))
                 for f in names if f.endswith("-Data.db")]
        return max(files, key=os.path.getsize)


# ---------------------------------------------------------------- the measurements

class Bench:
    """Runs every configuration in every case of one invocation, and writes a line to raw.jsonl per result."""

    def __init__(self, args, node, dataset, data_disk, root_disk, io_group):
        self.args, self.node, self.dataset = args, node, dataset
        self.data_disk, self.root_disk, self.io_group = data_disk, root_disk, io_group
        self.random = random.Random(args.seed)

    def record(self, row):
        with open(os.path.join(self.args.out, "raw.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")

    def keep_output(self, config, case, what, texts):
        """The clients' own output (status lines and summaries), xz-compressed beside raw.jsonl."""
        directory = os.path.join(self.args.out, "clients")
        os.makedirs(directory, exist_ok=True)
        storage = "same-disk" if case.cap is None else f"cap{case.cap.iops}"
        name = f"{case.workload}-{case.table}-{storage}-{config.name}-round{case.round + 1}-{what}.txt.xz"
        with lzma.open(os.path.join(directory, name), "wt") as f:
            for i, text in enumerate(texts):
                f.write(f"==== client {i + 1}\n{text}")

    def clients(self, case, keyspace, seconds, target=None, extra=STATUS_OPTIONS, move_after=None):
        """YCSB clients; a moving workload's hot set moves at move_after s of their run (None: never)."""
        return YcsbRun(self.args, self.node, "run", case.workload, keyspace, seconds, target, self.args.clients,
                       self.args.threads, (*extra, *move_options(case.workload, move_after)))

    def measure_round(self, rnd):
        for table in self.args.tables:
            for cap in self.args.caps:
                if self.io_group:
                    self.io_group.set(cap or Cap(0, 0))
                for workload in self.args.workloads:
                    case = Case(table, cap, workload, rnd)
                    # odd rounds run the configurations in reverse, so a drift in the machine over a run
                    # does not always favour the same one of a pair
                    configs = self.args.configs if rnd % 2 == 0 else self.args.configs[::-1]
                    for config in configs:
                        self.measure_safely(config, case)

    def measure_safely(self, config, case):
        try:
            self.measure(config, case)
        except (RuntimeError, OSError) as e:
            # One configuration failing (e.g. the node killed by the cgroup's OOM killer) is a result too.
            # the first line says what failed; a client's last line, when there is one, says why
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            reason = oom_reason(self.node) or " ".join(lines[:1] + lines[1:][-1:]) or repr(e)
            log(f"{config.label} ({case.describe()}) FAILED: {reason}")
            self.record({"config": config.name, "label": config.label, **case.fields(), "error": reason})
            self.node.stop()

    def memory(self, config):
        return config.memory_factor * self.args.memory

    def measure(self, config, case):
        # a loop device of the configuration's own goes after the node has stopped
        with contextlib.ExitStack() as devices:
            self.measure_on(config, case, devices)

    def slowed_device(self, devices, capacity):
        """The second flash device of a flash-2x-slowed configuration: a fresh loop device of its own on the
        flash file's disk, uncapped until the warm-up ends; its cap lifted before it is detached."""
        image = os.path.join(self.args.work, "flash-slowed.img")
        if os.path.exists(image):
            os.remove(image)
        devices.callback(lambda: os.path.exists(image) and os.remove(image))
        loop = devices.enter_context(capped_storage.LoopDevice(image, capacity))
        devices.callback(self.io_group.set_device, loop.majmin, Cap(0, 0))
        return loop

    def check_devices(self, config):
        """A flash-2x-slowed node's devices must read as two, with their read time, before its warm-up."""
        sample = self.device_sample(0)
        if len(sample["devices"]) != 2 or any(d.get("hit_read_nanos") is None for d in sample["devices"]):
            raise RuntimeError(f"{config.label}: the devices' beans did not read as two with their read time "
                               f"(an agent jar before HitReadNanos?): {sample}")

    def slow_down(self, config, slowed, running, at):
        """Caps the slowed device (--slowed-iops) once the warm-up's clients have reported second `at`: the
        devices sampled first (measure_target() samples on), the cap at the last window the clients had
        reported then (within a status window of it). The figures it adds to the measurement's row."""
        first = self.device_sample(at)
        cap = self.args.slowed_cap
        self.io_group.set_device(slowed.majmin, cap)
        capped_at = running.reached()
        log(f"{config.label}: second device {slowed.device} capped at {cap.label()} at {capped_at} s")
        return {"slowed_at_s": capped_at, "slowed_cap_iops": cap.iops, "slowed_cap_mib_s": cap.mib_s,
                "device_samples": [first]}

    def device_sample(self, t):
        """The devices' hit reads and their time, and the hot chunks moved, once the clients have reported
        second t (read just after it: one sjk JVM, seconds under load; each attribute read on its own)."""
        beans = self.node.beans("io.flashchunk:*")

        def space(bean):
            m = re.search(r"space=(\d+)", str(bean.get("name", "")))
            return int(m.group(1)) if m else -1
        devices = sorted((b for b in beans if "type=FlashChunkDevice" in str(b.get("name", ""))), key=space)
        cache = next((b for b in beans if "type=FlashChunkCache" in str(b.get("name", ""))), {})
        return {"t": t, "at": time.time(), "hot_chunks_moved": cache.get("HotChunksMoved"),
                # segments given up to make room for the moves (since 2026-11-30's second build; None before)
                "room_segments": cache.get("HotChunkMoveRoomSegments"),
                "devices": [{"hit_reads": d.get("HitReads"), "failed_hit_reads": d.get("FailedHitReads"),
                             "hit_read_nanos": d.get("HitReadNanos"), "busy_misses": d.get("BusyMisses"),
                             "bytes_read": d.get("BytesRead")}
                            for d in devices]}

    def wait_sampling(self, clients, end, samples):
        """Waits for the clients' window `end`; with a list of device samples, samples the devices every
        --device-sample-s s after its last one before then (inside the measured window: an sjk JVM each,
        the same for every configuration that samples)."""
        if samples:
            t = samples[-1]["t"] + self.args.device_sample_s
            while t < end:
                clients.wait_for_window(t)
                samples.append(self.device_sample(t))
                t += self.args.device_sample_s
        clients.wait_for_window(end)

    def measure_on(self, config, case, devices):
        args = self.args
        slowed = None
        keyspace = TABLES[config.table or case.table].keyspace
        device = os.path.join(args.work, "flash.img")
        # on the capped volume when the data is (the node's directory is on it)
        second = os.path.join(os.path.dirname(self.node.dir), "flash-capped.img")
        for path in (device, second):
            if os.path.exists(path):
                os.remove(path)
        if config.flash:
            capacity = flash_capacity(args, config.hot_multiple)
            more = ()
            if config.capped_second_device or config.slowed_second_device:
                capacity = capacity // 2 // 4096 * 4096
                if config.slowed_second_device:
                    slowed = self.slowed_device(devices, capacity)
                more = ((slowed.device if slowed else second, capacity),)
            for path in (device, *(p for p, _ in more if not slowed)):
                with open(path, "wb") as f:
                    f.truncate(capacity)
            record = None
            if args.record_reads and case.round == 0 and (not args.record_configs or config.name in args.record_configs):
                record = os.path.join(args.record_reads, f"{config.name}-{case.workload}-{case.table}-round{case.round}.reads")
                log(f"{config.label}: recording its chunk reads to {record}")
            self.node.configure(flash_yaml(device, capacity, config.flash_settings, config.device_settings, more), record,
                                args.other_jar if config.other_jar else None, config.node_settings,
                                config.jvm_options + self.jit_log(config, case))
        else:
            self.node.configure(None, node_settings=config.node_settings,
                                jvm_options=config.jvm_options + self.jit_log(config, case))
        self.dataset.restore(self.node, [config.table or case.table])
        drop_page_cache()
        # Linux copies read_ahead_kb into each file when it is opened: set before the node opens its SSTables.
        with ReadAhead(self.data_disk, args.machine_read_ahead_kb if config.machine_read_ahead else None):
            try:
                self.node.start(args.heap, self.memory(config))
                if slowed:
                    self.check_devices(config)
                if "kill-cold" in args.restarts:
                    self.kill_while_filling(config, case, keyspace)
                # The unthrottled measurement first: the warm-up is its clients' own first part, so the
                # client JVMs (their JIT takes most of a minute here) are warm when it starts.
                targets = sorted(args.targets, key=lambda t: t != 0)
                settle = args.warmup
                warm, running = {}, None
                if args.steady:
                    # The fill time is from a cold cache and a fresh start; the measurement goes on with the
                    # warm-up's clients, SLOW_COUNTERS_LEAD_S after it ended.
                    warm, running, ended_at = self.warm_until_steady(config, case, keyspace)
                    if slowed and running:
                        try:
                            warm = dict(warm, **self.slow_down(config, slowed, running, ended_at))
                        except BaseException:
                            running.stop()  # not left to load the next configuration's node
                            running.wait()
                            raise
                    if running and targets[0] != 0:  # unthrottled clients: no use for a target rate
                        running.stop()
                        self.keep_output(config, case, "warmup", running.wait())
                        running = None
                    settle = ended_at + SLOW_COUNTERS_LEAD_S if running else args.settle
                elif targets[0] != 0:
                    log(f"{config.label} ({case.describe()}): warming up {args.warmup} s")
                    self.clients(case, keyspace, args.warmup, extra=()).wait()
                    settle = args.settle
                for target in targets:
                    self.measure_target(config, case, keyspace, target, settle, warm, running if target == 0 else None)
                    running = None
                    settle = args.settle
                life = "warm-up and measurements"
                kinds = [k for k in ("clean", "kill") if k in args.restarts and args.restart_seconds]
                if kinds:
                    self.restarts(config, case, keyspace, kinds, life)
                    life = "after the restarts"
                self.stop(config, case, life)
            finally:
                self.node.stop()

    def stop(self, config, case, life):
        """A clean stop; a flash cache logs its counters as it closes: they go to raw.jsonl."""
        self.node.stop()
        if config.flash:
            self.record({"phase": "cache-stats", "config": config.name, "label": config.label, **case.fields(),
                         "life": life, "summary": self.node.closing_stats()})

    def clock_counters(self, pid, clients=None):
        """The clock, the node's CPU and the disks' counters, read together: what the rates divide by the clock;
        with clients, the node's CPU by thread group and the YCSB clients' CPU too."""
        counters = {"at": time.time(), "cpu": cpu_seconds(pid), "data": disk_reads(self.data_disk),
                    "root": disk_reads(self.root_disk), "io": self.io_group.counters() if self.io_group else None}
        if clients is not None:
            counters["threads"] = thread_cpu_seconds(pid)
            counters["clients"] = clients.cpu_seconds()
        return counters

    def cache_counters(self, flash=False):
        """The chunk cache's and the flash cache's counters: they only give ratios. nodetool and sjk start JVMs
        of their own and take seconds under load (15 s seen), so they are read outside the measured window."""
        return {"cache": self.node.chunk_cache(),
                "flash": flash_counters(self.node.flash_bean(), self.node.device_beans()) if flash else {}}

    def warm_until_steady(self, config, case, keyspace):
        """--warmup steady: YCSB at full rate on the cold node until the flash cache's hit ratio is steady
        (steady_point over --steady-window s windows; stock Cassandra, which has no chunk cache here: its
        throughput) or --steady-max s have passed; a "warm-up" row with every window's ratio and throughput.
        Returns steady_figures() and, unless the workload moves its hot set (its clients are told when at
        their start), the clients, still running and warm, with the second of their run the warm-up ended
        at: the measurement goes on with them (fresh client JVMs take most of a minute to reach their rate)."""
        args, window = self.args, self.args.steady_window
        log(f"{config.label} ({case.describe()}): warming up until the "
            f"{'hit ratio' if config.flash else 'throughput'} is steady ({window} s windows, at most {args.steady_max} s)")
        keep = not moves_hot_set(case.workload)
        clients = self.clients(case, keyspace, args.steady_max + (SLOW_COUNTERS_LEAD_S + args.measure if keep else 0) + 60)
        readings, ratios, throughputs = [self.node.chunk_cache()], [], []
        try:
            while (steady_levels(ratios, throughputs, config.flash)[2] is None
                   and (len(ratios) + 1) * window <= args.steady_max):
                end = window * (len(ratios) + 1)
                clients.wait_for_window(end)
                readings.append(self.node.chunk_cache())
                ratios.append(window_hit_ratio(readings[-2], readings[-1]))
                throughputs.append(ycsb_output.measured(clients.texts(), end - window, end)["ops_per_s"] or None)
        except BaseException:
            clients.stop()
            clients.wait()
            raise
        ended_at = window * len(ratios)
        if not keep:
            clients.stop()
            self.keep_output(config, case, "warmup", clients.wait())
        figures = steady_figures(ratios, window, throughputs, config.flash)
        timeline = [[t, round(w["ops"], 1)] for t, w in sorted(ycsb_output.windows(clients.texts()).items())
                    if t <= ended_at]
        self.record({"phase": "warm-up", "config": config.name, "label": config.label, **case.fields(),
                     "from_cold": "kill-cold" not in args.restarts, "window_s": window, **figures,
                     "timeline": timeline})
        levels = figures["warmup_hit_ratios" if figures["steady_by"] == "hit ratio" else "warmup_ops_per_s"]
        log(f"{config.label} ({case.describe()}): {figures['steady_by']} "
            + (f"steady from {figures['fill_s']} s" if figures["steady_reached"]
               else f"not steady in {figures['warmup_run_s']} s") + f" (windows: {levels})")
        return ({k: figures[k] for k in ("steady_by", "steady_reached", "fill_s", "steady_detected_s", "warmup_run_s")},
                clients if keep else None, ended_at)

    def measure_target(self, config, case, keyspace, target, settle, warm=None, running=None):
        """One measurement at a target rate (0: unthrottled): clients run for `settle` s (`running`: clients
        already that far, the warm-up's), then the next --measure s are measured, from their status windows
        and the node's clock, CPU and disk counters at the windows' bounds (the cache counters, slow to read,
        just outside them). A moving workload's hot set moves halfway through the measured window."""
        args, pid = self.args, self.node.pid()
        if settle == args.warmup and target == 0:
            log(f"{config.label} ({case.describe()}): warming up {settle} s, then measuring {args.measure} s")
        move_at = settle + args.measure / 2
        clients = running or self.clients(case, keyspace, settle + args.measure + 60, target, move_after=move_at)
        profiled = args.profile and target == 0
        suffix = f"-round{case.round + 1}" if args.repeat > 1 else ""
        storage = "same-disk" if case.cap is None else f"cap{case.cap.iops}"
        prefix = os.path.join(args.out, f"profile-{case.workload}-{case.table}-{storage}-{config.name}{suffix}")
        try:
            clients.wait_for_window(max(0, settle - SLOW_COUNTERS_LEAD_S))
            before = self.cache_counters(config.flash)
            clients.wait_for_window(settle)
            before.update(self.clock_counters(pid))
            # A flame graph (600 KB) of the first round only; every round's stacks feed the report.
            with (Profile(profiler_library(args), pid, prefix, case.round == 0) if profiled
                  else contextlib.nullcontext()):
                samples = (warm or {}).get("device_samples")
                self.wait_sampling(clients, settle + args.measure, samples)
            after = self.clock_counters(pid)
            if samples:  # the last, after the window's clock and CPU were read
                samples.append(self.device_sample(settle + args.measure))
            after.update(self.cache_counters(config.flash))
        finally:
            clients.stop()
            texts = clients.wait()
        self.keep_output(config, case, f"target{target}", texts)
        result = ycsb_output.measured(texts, settle, settle + args.measure)
        result["timeline"] = [[t, round(w["ops"], 1)] for t, w in sorted(ycsb_output.windows(texts).items())]
        result.update(self.rates(before, after))
        result.update(cache_figures(before["flash"], after["flash"], chunk_bytes_of(config.table or case.table)))
        result.update(warm or {})
        if moves_hot_set(case.workload):
            result["hot_set_moved_at_s"] = move_at
        result.update({"config": config.name, "label": config.label, **case.fields(), "target": target or 0,
                       "settle_s": settle, "memory_bytes": self.memory(config), "flash_hot_multiple": config.hot_multiple,
                       "chunk_cache_capacity": after["cache"]["capacity"],
                       "chunk_cache_entries": after["cache"]["entries"],
                       "read_ahead_kb": ReadAhead(self.data_disk, None).current()})
        rss, page_cache = cgroup_memory()
        result["rss_mib"] = rss and round(rss / 2**20)
        result["page_cache_mib"] = page_cache and round(page_cache / 2**20)
        ops = result["ops_per_s"]
        result["cpu_ms_per_op"] = result["cassandra_cpu"] * 1000 / ops if ops else None
        self.record(result)
        hit = result["chunk_cache_hit_ratio"]
        served = (f", data device {result['cap_read_iops']:,.0f} reads/s {result['cap_read_mb_s']:.0f} MB/s"
                  if self.io_group else "")
        log(f"{config.label} ({case.describe()}), target {target or 'max'}: {ops:,.0f} ops/s, read avg "
            f"{result.get('read_avg_ms', 0):.2f} ms p99 {result.get('read_p99_ms', 0):.1f} ms, CPU "
            f"{result['cassandra_cpu'] * 100:.0f}% ({result['cpu_ms_per_op'] or 0:.3f} ms/op){served}, chunk cache hits "
            f"{'n/a' if hit is None else f'{hit:.2f}'}, RSS {result['rss_mib']} MiB, page cache {result['page_cache_mib']} MiB"
            + (f", flash writes {result['flash_written_per_admitted_byte']:.2f} B per admitted B"
               if result.get("flash_written_per_admitted_byte") is not None else ""))
        return ops

    def rates(self, before, after):
        seconds = after["at"] - before["at"]
        data_reads = after["data"][0] - before["data"][0]
        data_bytes = after["data"][1] - before["data"][1]
        root_bytes = after["root"][1] - before["root"][1]
        requests = after["cache"]["requests"] - before["cache"]["requests"]
        misses = after["cache"]["misses"] - before["cache"]["misses"]
        rates = {"seconds": round(seconds, 1), "cassandra_cpu": (after["cpu"] - before["cpu"]) / seconds,
                 # The root disk: everything in the same-disk regime; the flash file (and the capped volume's
                 # image, read with O_DIRECT through the loop device) when capped.
                 "disk_read_mb_s": root_bytes / seconds / 1e6,
                 "data_read_iops": data_reads / seconds, "data_read_mb_s": data_bytes / seconds / 1e6,
                 "chunk_cache_hit_ratio": (requests - misses) / requests if requests else None}
        if self.data_disk != self.root_disk:
            rates["flash_disk_read_mb_s"] = (root_bytes - data_bytes) / seconds / 1e6
        if before["io"] is not None:
            io = {k: after["io"][k] - before["io"][k] for k in before["io"]}
            rates.update({"cap_read_iops": io["read_ios"] / seconds, "cap_read_mb_s": io["read_bytes"] / seconds / 1e6,
                          "cap_write_iops": io["write_ios"] / seconds,
                          "cap_write_mb_s": io["write_bytes"] / seconds / 1e6})
        return rates

    def kill_under_load(self, case, keyspace, seconds, config):
        """YCSB at full rate for `seconds`, then SIGKILL; returns the cache's entries just before."""
        clients = self.clients(case, keyspace, int(seconds) + 120, extra=())
        try:
            time.sleep(max(0.0, seconds - 2))  # nodetool's own JVM takes about 2 s to answer
            entries = self.node.chunk_cache()["entries"] if config.flash else None
            self.node.kill()
        finally:
            clients.stop()
            clients.wait()
        return entries

    def kill_while_filling(self, config, case, keyspace):
        """A crash while a cold cache fills: the share of its chunks the next start recovers."""
        delay = self.random.uniform(KILL_COLD_EARLIEST_S, max(KILL_COLD_EARLIEST_S + 1, self.args.warmup))
        log(f"{config.label} ({case.describe()}): SIGKILL after {delay:.0f} s of load on a cold cache")
        entries = self.kill_under_load(case, keyspace, delay, config)
        drop_page_cache()
        startup = self.node.start(self.args.heap, self.memory(config))
        recovered = self.node.recovered_chunks() if config.flash else None
        self.record_restart(config, case, "kill-cold", startup, [], None, delay, entries, recovered)

    def restarts(self, config, case, keyspace, kinds, life):
        """The restarts, with one set of YCSB clients running at full rate through all of them, so their
        JVMs are warm: they run --restart-warm s against the warm node (the last 30 s of which are the
        warm throughput), then for each kind the node is stopped cleanly (clients frozen first: traffic
        drained, as in a rolling restart) or killed under load after a random 5-65 s (clients frozen
        right after), the page cache dropped (as after a machine restart), the node started, the
        clients resumed, and followed from the moment the node answers CQL until they have held
        RESTART_SHARE of the warm throughput for --restart-hold s, or for --restart-seconds."""
        args = self.args
        # A moving workload's hot set as the measurement left it: moved.
        clients = self.clients(case, keyspace, 3600, move_after=0)
        try:
            clients.wait_for_window(args.restart_warm)
            warm = ycsb_output.measured(clients.texts(), args.restart_warm - 30, args.restart_warm)["ops_per_s"]
            # The warm node's CPU and data-device reads a second, to set the ramp's beside (a measuring window).
            warm_from = self.clock_counters(self.node.pid(), clients)
            time.sleep(RESOURCE_WINDOW_S)
            warm_resources = resource_rates(warm_from, self.clock_counters(self.node.pid(), clients))
            log(f"{config.label} ({case.describe()}): warm clients see {warm:,.0f} ops/s before the restarts; "
                f"the node {warm_resources}")
            for kind in kinds:
                delay = entries = None
                if kind == "clean":
                    clients.freeze()
                    self.stop(config, case, life)
                else:
                    delay = self.random.uniform(*KILL_WINDOW_S)
                    log(f"{config.label} ({case.describe()}): SIGKILL after {delay:.0f} s of load")
                    time.sleep(max(0.0, delay - 2))  # nodetool's own JVM takes about 2 s to answer
                    entries = self.node.chunk_cache()["entries"] if config.flash else None
                    self.node.kill()
                    clients.freeze()
                drop_page_cache()
                startup = self.node.start(args.heap, self.memory(config))
                ready = time.time()
                recovered = self.node.recovered_chunks() if config.flash else None
                clients.resume()
                resources = [self.clock_counters(self.node.pid(), clients)]  # before the profiler, if any, attaches
                # With --profile, the node's CPU in the first RESTART_PROFILE_S after CQL-ready: the ramp.
                profiling = (Profile(profiler_library(args), self.node.pid(), self.restart_profile(config, case, kind),
                                     False) if args.profile else None)
                if profiling:
                    profiling.__enter__()
                try:
                    while time.time() - ready < args.restart_seconds:
                        time.sleep(1)
                        resources.append(self.clock_counters(self.node.pid(), clients))
                        if profiling and time.time() - ready >= RESTART_PROFILE_S:
                            profiling, done = None, profiling
                            done.__exit__(None, None, None)
                        after = [w for w in ycsb_output.since(clients.texts(), ready) if w[0] > 0]
                        reached = ycsb_output.time_to_reach(after, warm, RESTART_SHARE)
                        if reached is not None and time.time() - ready >= reached + args.restart_hold:
                            break
                finally:
                    if profiling:
                        profiling.__exit__(None, None, None)
                timeline = [w for w in ycsb_output.since(clients.texts(), ready) if w[0] > -30]
                ramp = [dict(resource_rates(a, b), t=round(b["at"] - ready, 1)) for a, b in zip(resources, resources[1:])]
                self.record_restart(config, case, kind, startup, timeline, warm, delay, entries, recovered,
                                    ramp, warm_resources)
        finally:
            clients.stop()
            self.keep_output(config, case, "restarts", clients.wait())

    def jit_log(self, config, case):
        """With --jit-log, the JVM options that log each method the node's JIT compiles, with the JVM's uptime,
        to OUT/jit-<case>-<config>-<pid>.log (a file each start: the node's own logs go with the run)."""
        if not (self.args.jit_log or self.args.jit_deopt):
            return ()
        suffix = f"-round{case.round + 1}" if self.args.repeat > 1 else ""
        out = os.path.abspath(self.args.out)
        name = f"jit-{case.workload}-{case.table}-{config.name}{suffix}-%p.log"
        # The classes loaded too: one loaded late invalidates the compiled code that assumed it absent; and classes
        # redefined (an agent's retransformation lets go of the code compiled from them).
        options = (f"-Xlog:jit+compilation=debug,class+load=info,redefine+class*=info"
                   f":file={os.path.join(out, name)}:uptimemillis,tags",)
        if self.args.jit_deopt:
            # JDK 17 logs why code is let go only in HotSpot's compilation log: each uncommon trap with its reason
            # and the method it fired in, each failed dependency with the class that broke it; its stamps are
            # the JVM's uptime in seconds, like the -Xlog file's. %p becomes "pid<pid>".
            xml = f"jitxml-{case.workload}-{case.table}-{config.name}{suffix}-%p.xml"
            options += ("-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation", f"-XX:LogFile={os.path.join(out, xml)}")
        return options

    def restart_profile(self, config, case, kind):
        """OUT/restart-profile-<case>-<config>-<kind>[-round<n>]: apart from the warm profiles' names."""
        suffix = f"-round{case.round + 1}" if self.args.repeat > 1 else ""
        storage = "same-disk" if case.cap is None else f"cap{case.cap.iops}"
        return os.path.join(self.args.out,
                            f"restart-profile-{case.workload}-{case.table}-{storage}-{config.name}-{kind}{suffix}")

    def record_restart(self, config, case, kind, startup, timeline, warm_ops, delay, entries, recovered,
                       ramp=None, warm_resources=None):
        # Windows before CQL-ready (the warm level, the stop) are kept for the plot, not for the reach.
        after = [w for w in timeline if w[0] > 0]
        reached = ycsb_output.time_to_reach(after, warm_ops, RESTART_SHARE) if warm_ops else None
        row = {"phase": "restart", "kind": kind, "config": config.name, "label": config.label, **case.fields(),
               "flash_hot_multiple": config.hot_multiple, "startup_s": startup, "pid": self.node.pid(), "timeline": timeline,
               "warm_ops_per_s": warm_ops, "share": RESTART_SHARE, "time_to_share_s": reached,
               "followed_s": after[-1][0] if after else None,
               "ops_per_s_first_30s": ycsb_output.mean_until(after, 30), "kill_after_s": delay,
               "entries_at_kill": entries, "recovered_entries": recovered,
               "recovered_share": recovered / entries if entries and recovered is not None else None,
               # a second at a time after CQL-ready: the node's CPU and its data device's reads (the capped
               # volume's, as the blkio group counts them); the warm node's beside them
               "ramp_resources": ramp, "warm_resources": warm_resources}
        self.record(row)
        text = f"{config.label} ({case.describe()}) after a {kind} restart: CQL after {startup} s"
        if recovered is not None:
            text += f", {recovered:,} chunks recovered" + (f" of {entries:,} at the kill" if entries else "")
        if warm_ops:
            text += (f"; {RESTART_SHARE:.0%} of warm ({warm_ops:,.0f} ops/s) "
                     + (f"after {reached:.0f} s" if reached is not None else f"not reached in {row['followed_s']} s"))
        if ramp:
            first = [r for r in ramp if r["t"] <= 30]
            if first:
                text += (f"; first 30 s: CPU {sum(r['cpu'] for r in first) / len(first):.2f} cores, data device "
                         f"{sum(r['data_read_iops'] for r in first) / len(first):,.0f} reads/s"
                         + (f" (capped group {sum(r['cap_read_iops'] for r in first) / len(first):,.0f})"
                            if first[0].get("cap_read_iops") is not None else ""))
        log(text)


# ---------------------------------------------------------------- command line

def parse_caps(iops, mbps):
    """[None] for the same-disk regime; else one Cap per comma-separated value (0: the volume uncapped)."""
    if iops in (None, "off"):
        if mbps:
            raise SystemExit("bench-ycsb: --storage-mbps needs --storage-iops")
        return [None]
    values = [capped_storage.default_cap().iops if v == "default" else int(v) for v in iops.split(",")]
    if any(v < 0 for v in values):
        raise SystemExit(f"bench-ycsb: --storage-iops must be 0 (uncapped) or positive, got {iops}")
    if not mbps:
        return [Cap.scaled(v) for v in values]
    rates = [float(v) for v in mbps.split(",")]
    if len(rates) != len(values) or any(r <= 0 for r, v in zip(rates, values) if v):
        raise SystemExit(f"bench-ycsb: --storage-mbps needs one positive MiB/s per --storage-iops value, got {mbps}")
    return [Cap(v, r if v else 0) for v, r in zip(values, rates)]


def parse_warmup(text):
    """--warmup: seconds, or 'steady'."""
    if text == "steady":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is neither seconds nor 'steady'")


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
    p.add_argument("--warmup", type=parse_warmup, default=180,
                   help="seconds of YCSB before the first measurement, or 'steady': clients of their own run on the "
                        "cold node until the chunk cache's hit ratio is steady (its hit ratios over "
                        f"{STEADY_WINDOWS} --steady-window windows in a row within {STEADY_SPREAD * 100:g} point of "
                        "each other) or --steady-max has passed; the time the cold cache took (fill_s) goes to "
                        "raw.jsonl and the table, and every target is then measured after --settle s")
    p.add_argument("--steady-window", type=int, default=30,
                   help="with --warmup steady: seconds per hit-ratio window (a multiple of YCSB's 5 s status interval)")
    p.add_argument("--steady-max", type=int, default=1200,
                   help="with --warmup steady: warm up at most this long (then measure anyway, steady_reached false)")
    p.add_argument("--measure", type=int, default=30)
    # Fresh YCSB client JVMs on these 2 cores take most of a minute to reach their speed (their JIT,
    # decoding 64 KB rows): within one 45 s measurement, throughput rose from 1,447 to 3,250 ops/s
    # after a 180 s warm-up of the node (docs/ycsb-benchmark.md, run 15).
    p.add_argument("--settle", type=int, default=60,
                   help="seconds a throttled target's clients run before they are measured (the unthrottled "
                        "target's clients run through the warm-up)")
    p.add_argument("--restart-warm", type=int, default=90,
                   help="seconds the restarts' clients run against the warm node first; the last 30 s are the "
                        "warm throughput")
    p.add_argument("--workloads", default="paper-read100,paper-read80-update20",
                   help="files of ycsb-workloads/workloads: paper-read100, paper-read80-update20 (hotspot 30/80), "
                        "paper-read100-zipfian, paper-read100-moving (hotspot whose hot set moves to the next 30%% of "
                        "the keys halfway through each measured window; restarts' clients read the moved one; "
                        "best with --targets 0, as each target's clients start from the first hot set)")
    p.add_argument("--configs", default="base-c-M,base-c-2M,base-u-M,flash-1x,flash-2x,flash-4x",
                   help=f"configurations, in order: {', '.join(CONFIGS)} (flash-Nx: flash at N hot sets, 0.5 too; "
                        "base-c-kM: stock Cassandra at k times M)")
    p.add_argument("--tables", default="lz4", help=f"compressions of the YCSB table, each measured: {', '.join(TABLES)}")
    p.add_argument("--storage-iops", default=None,
                   help="the capped regime: data on a loop device capped at these IOPS, one after the other "
                        "(e.g. 0,4000,2000,1000,500; 0 = uncapped; 'default' = a cloud volume's baseline scaled to "
                        "this machine's cores, see capped_storage.py); absent or 'off': the same-disk regime")
    p.add_argument("--storage-mbps", default=None,
                   help="the bandwidth caps in MiB/s, one per --storage-iops value (default: scaled like a cloud "
                        "volume's, 125 MiB/s per 3,000 IOPS)")
    p.add_argument("--storage-size", type=parse_size, default=parse_size("64G"),
                   help="the capped volume's sparse image (only written blocks take space)")
    p.add_argument("--read-ahead-kb", default="16",
                   help="the data disk's read_ahead_kb during the run ('machine' leaves it); restored after")
    p.add_argument("--restarts", default="clean,kill",
                   help="after measuring: 'clean' (SIGTERM), 'kill' (SIGKILL at a random moment under load); "
                        "'kill-cold': also a SIGKILL while the cold cache fills, before the warm-up; 'none'")
    p.add_argument("--restart-seconds", type=int, default=180,
                   help="follow YCSB after each restart for at most this long; 0: no restarts")
    p.add_argument("--restart-hold", type=int, default=15,
                   help=f"stop following once {RESTART_SHARE * 100:.0f}%% of the warm throughput has been reached this long ago")
    p.add_argument("--seed", type=int, default=1, help="of the random kill moments")
    p.add_argument("--record-reads", metavar="DIR", default=None,
                   help="flash configurations record every chunk read to DIR/CONFIG-WORKLOAD-TABLE-roundN.reads, "
                        "a trace for scripts/sim-cache.sh --recorded (the first round only, so a second one shows "
                        "what recording cost)")
    p.add_argument("--record-configs", type=lambda text: text.split(","), default=[],
                   help="with --record-reads: only these configurations record (default: every flash one)")
    p.add_argument("--other-jar", metavar="JAR", default=None,
                   help="the agent jar of another build (e.g. an earlier commit's) for the configurations flash-4x-other and "
                        "flash-2x-two-other, "
                        "to compare builds side by side in one run")
    p.add_argument("--slowed-iops", default="default",
                   help="the cap the flash-2x-slowed configurations put on their second device when the warm-up "
                        "ends: IOPS (the bandwidth scaled like --storage-iops) or 'default' (the cloud volume's "
                        "share, as --storage-iops default)")
    p.add_argument("--device-sample-s", type=int, default=30,
                   help="with a flash-2x-slowed configuration: seconds between samples of each device's reads "
                        "and their time, from the cap to the end of the measurement")
    p.add_argument("--reuse-data", action="store_true", help="keep the loaded node from an earlier run of the same size")
    p.add_argument("--append", action="store_true",
                   help="add to the results already in --out (another part of a sweep, measured the same way): "
                        "one report over all of them")
    p.add_argument("--repeat", type=int, default=1,
                   help="run every configuration this many times, in rounds, odd ones in reverse order (A B, B A, ...: drift favours none); "
                        "the report gives medians, ranges and per-round ratios")
    p.add_argument("--jit-log", action="store_true",
                   help="log each method the node's JIT compiles and each class it loads, with the "
                        "JVM's uptime (OUT/jit-*-<pid>.log, a file each start; scripts/bench_jit_report.py tells what a "
                        "restart compiled after CQL-ready)")
    p.add_argument("--jit-deopt", action="store_true",
                   help="--jit-log, and HotSpot's compilation log (OUT/jitxml-*-pid<pid>.xml, LogCompilation): why the "
                        "JIT let compiled code go (each uncommon trap's reason and method, each failed dependency's "
                        "class); scripts/bench_jit_report.py sorts what it let go after CQL-ready by cause. It slows "
                        "the compilers a little: for finding causes, not for timing ramps")
    p.add_argument("--profile", action="store_true",
                   help="sample the node's CPU with async-profiler during the last target (profile-*.collapsed.xz, "
                        "profile-*.html; scripts/bench_profile_report.py sums them up) and in the first 30 s after "
                        "each restart's CQL-ready (restart-profile-*.collapsed.xz, in the same report)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error(f"--repeat must be at least 1, got {args.repeat}")
    args.targets = [int(t) for t in args.targets.split(",")]
    args.workloads = args.workloads.split(",")
    missing = [w for w in args.workloads if not os.path.exists(os.path.join(WORKLOADS, w))]
    if missing:
        p.error(f"--workloads: no such workload file {missing} in {WORKLOADS}")
    # With 'steady' the warm-up's length is not known: --steady-max bounds it (and a kill-cold's moment).
    args.steady = args.warmup == "steady"
    if args.steady:
        args.warmup = args.steady_max
    if args.steady_window <= 0 or args.steady_window % ycsb_output.STATUS_INTERVAL_S:
        p.error(f"--steady-window must be a positive multiple of {ycsb_output.STATUS_INTERVAL_S}, got {args.steady_window}")
    unknown = [c for c in args.configs.split(",") if c not in CONFIGS]
    if unknown:
        p.error(f"unknown configuration(s) {unknown}; known: {list(CONFIGS)}")
    args.configs = [CONFIGS[c] for c in args.configs.split(",")]
    args.tables = args.tables.split(",")
    if any(t not in TABLES for t in args.tables):
        p.error(f"--tables: unknown table in {args.tables}; known: {list(TABLES)}")
    args.restarts = [] if args.restarts == "none" else args.restarts.split(",")
    if any(k not in ("clean", "kill", "kill-cold") for k in args.restarts):
        p.error(f"--restarts: clean, kill, kill-cold or none, got {','.join(args.restarts)}")
    args.caps = parse_caps(args.storage_iops, args.storage_mbps)
    args.read_ahead_kb = None if args.read_ahead_kb == "machine" else int(args.read_ahead_kb)
    # The node runs in its own directory: a relative flash device path in its yaml would point elsewhere.
    args.work = os.path.abspath(args.work)
    if any(c.other_jar for c in args.configs) != bool(args.other_jar):
        p.error("--other-jar JAR and a configuration of another jar (flash-4x-other, flash-4x-warm-other, "
                "flash-2x-two-other) go together")
    if args.other_jar:
        if not os.path.isfile(args.other_jar):
            p.error(f"--other-jar: no such file {args.other_jar}")
        args.other_jar = os.path.abspath(args.other_jar)
    if args.slowed_iops != "default" and not args.slowed_iops.isdigit():
        p.error(f"--slowed-iops: IOPS or 'default', got {args.slowed_iops}")
    args.slowed_cap = capped_storage.Cap.scaled(
        capped_storage.default_cap().iops if args.slowed_iops == "default" else int(args.slowed_iops))
    if any(c.slowed_second_device for c in args.configs):
        if not args.steady:
            p.error("the flash-2x-slowed configurations cap their second device when a --warmup steady ends: "
                    "give --warmup steady")
        if args.caps == [None]:
            p.error("the flash-2x-slowed configurations cap their second device through the node's blkio "
                    "group: give --storage-iops")
        if any(moves_hot_set(w) for w in args.workloads):
            p.error("the flash-2x-slowed configurations cap their second device on the warm-up's clients, which a "
                    "workload whose hot set moves does not keep: give workloads whose hot set stays")
        if args.targets != [0]:
            p.error("the flash-2x-slowed configurations are measured on the warm-up's unthrottled clients: "
                    f"give --targets 0, not {','.join(map(str, args.targets))}")
        if args.slowed_cap.iops <= 0:
            p.error(f"--slowed-iops must be positive, got {args.slowed_iops}")
        if args.device_sample_s <= 0 or args.device_sample_s % ycsb_output.STATUS_INTERVAL_S:
            p.error(f"--device-sample-s must be a positive multiple of {ycsb_output.STATUS_INTERVAL_S}, "
                    f"got {args.device_sample_s}")
    if args.record_configs and not args.record_reads:
        p.error("--record-configs needs --record-reads DIR")
    strangers = [c for c in args.record_configs if c not in {config.name for config in args.configs if config.flash}]
    if strangers:
        p.error(f"--record-configs: {', '.join(strangers)} is not a flash configuration of --configs")
    if args.record_reads:
        args.record_reads = os.path.abspath(args.record_reads)
        os.makedirs(args.record_reads, exist_ok=True)
    return args


# What must be equal for two invocations' results to go in one report (--append).
SAME_SETUP = ("records", "field_length", "heap", "memory_bytes", "clients", "threads", "warmup_s", "measure_s",
              "chunk_kb", "restart_share", "settle_s", "restart_warm_s")


def merge_setup(earlier, later):
    """One setup for the results of two invocations: their lists joined in order, without repeats."""
    differ = [k for k in SAME_SETUP if earlier.get(k) != later.get(k)]
    if differ:
        raise SystemExit(f"bench-ycsb: --append: the results in this directory were measured with other "
                         f"{', '.join(differ)} ({', '.join(f'{k}={earlier.get(k)}' for k in differ)})")
    merged = dict(later)
    for key in ("targets", "configs", "workloads", "caps", "restarts"):
        merged[key] = list(earlier.get(key, [])) + [v for v in later[key] if v not in earlier.get(key, [])]
    for key in ("labels", "tables", "cap_probe_reads_per_s"):
        merged[key] = {**earlier.get(key, {}), **later[key]}
    merged["rounds"] = max(earlier.get("rounds", 1), later["rounds"])
    return merged


def refuse_earlier_results(args):
    """Results are appended to OUT/raw.jsonl as they come: without --append, another run's there would be
    mixed into this one's report."""
    if not args.append and os.path.exists(os.path.join(args.out, "raw.jsonl")):
        raise SystemExit(f"bench-ycsb: --out {args.out} already holds results (raw.jsonl): choose another "
                         "directory, or --append to add this run's to them")


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("bench-ycsb: needs root (cgroups, loop devices, dropping the page cache, read_ahead_kb)")
    refuse_earlier_results(args)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    capped = args.caps != [None]
    # the run's own copy of the agent jar: a build in this checkout during the run must not change it
    # under a node that restarts
    staged = os.path.join(args.work, "flashchunk-cassandra.jar")
    shutil.copyfile(node_control.AGENT_JAR, staged)
    node_control.AGENT_JAR = staged
    tables = sorted({c.table or t for c in args.configs for t in args.tables})
    with contextlib.ExitStack() as stack:
        # Runs last-in first-out: clients end before the node's storage goes away.
        stack.callback(YcsbRun.stop_all)
        io_group = None
        if capped:
            volume = stack.enter_context(capped_storage.LoopVolume(
                os.path.join(args.work, "storage.img"), os.path.join(args.work, "storage"), args.storage_size))
            io_group = stack.enter_context(capped_storage.IoCapGroup(BLKIO_CGROUP, volume.majmin))
            stack.callback(YcsbRun.stop_all)
            root = volume.mountpoint
        else:
            root = args.work
        node = Node(os.path.join(root, "node"), io_group and io_group.name)
        dataset = Dataset(args, root)
        node.init()
        # a failure anywhere below must not leave the node running on the storage about to go away
        stack.callback(node.kill)
        data_disk, root_disk = disk_of(node.dir), disk_of(args.work)
        with ReadAhead(data_disk, args.read_ahead_kb) as read_ahead:
            args.machine_read_ahead_kb = int(read_ahead.saved)
            dataset.prepare(node, tables)
            probes = {}
            for cap in args.caps:
                if cap and cap.iops:
                    # The cap must hold the baseline's buffered reads too (page-cache misses, read-ahead).
                    io_group.set(cap)
                    probes[str(cap.iops)] = capped_storage.probe(io_group, dataset.largest_data_file(tables[0]))
                    log(f"cap {cap.label()}: random 4 KiB buffered reads from inside the group ran at "
                        f"{probes[str(cap.iops)]:,.0f}/s")
                    if probes[str(cap.iops)] > 1.2 * cap.iops:
                        raise SystemExit(f"bench-ycsb: the cap of {cap.iops} IOPS does not hold buffered reads "
                                         f"({probes[str(cap.iops)]:,.0f}/s)")
            meta = {"records": args.records, "field_length": args.field_length, "heap": args.heap,
                    "memory_bytes": args.memory, "hot_set_bytes": hot_set_bytes(args), "targets": args.targets,
                    "clients": args.clients, "threads": args.threads,
                    "warmup_s": "steady" if args.steady else args.warmup,
                    "measured_on_warmup_clients": args.steady,
                    "measure_s": args.measure, "data_disk": data_disk, "root_disk": root_disk,
                    "disk": data_disk, "read_ahead_kb": read_ahead.current(),
                    "machine_read_ahead_kb": int(read_ahead.saved), "chunk_kb": CHUNK_KB,
                    "configs": [c.name for c in args.configs], "labels": {c.name: c.label for c in args.configs},
                    "other_jar": args.other_jar, "workloads": args.workloads, "rounds": args.repeat,
                    "tables": {t: TABLES[t].description for t in args.tables},
                    "caps": [None if c is None else [c.iops, c.mib_s] for c in args.caps],
                    "cap_probe_reads_per_s": probes, "restarts": args.restarts,
                    "restart_seconds": args.restart_seconds, "restart_share": RESTART_SHARE,
                    "settle_s": args.settle, "restart_warm_s": args.restart_warm}
            if args.steady:
                meta.update({"steady_window_s": args.steady_window, "steady_max_s": args.steady_max,
                             "steady_windows": STEADY_WINDOWS, "steady_spread": STEADY_SPREAD,
                             "steady_throughput_spread": STEADY_THROUGHPUT_SPREAD})
            setup_path = os.path.join(args.out, "setup.json")
            if args.append and os.path.exists(setup_path):
                meta = merge_setup(json.load(open(setup_path)), meta)
            json.dump(meta, open(setup_path, "w"), indent=1)
            log(f"hot set {hot_set_bytes(args) / 2**20:.0f} MiB of chunks; M = {args.memory / 2**20:.0f} MiB; "
                f"data on {data_disk} (read_ahead_kb {read_ahead.current()}), flash file on {root_disk}")
            bench = Bench(args, node, dataset, data_disk, root_disk, io_group)
            for rnd in range(args.repeat):
                if args.repeat > 1:
                    log(f"round {rnd + 1} of {args.repeat}")
                bench.measure_round(rnd)
            node.stop()
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(args.work, "flash.img"))  # up to 4x the hot set, rewritten by every run
    log("done")


def self_test():
    """Checks the command line's regimes and that a flash configuration is one the node cannot silently
    run without (the YCSB output parsing has its own self-test, ycsb_output.py)."""
    import benchlib
    failures = []
    check = benchlib.checker(failures)
    with tempfile.TemporaryDirectory() as out:
        refuse_earlier_results(parse_args(["--out", out]))  # an empty directory: nothing to refuse
        open(os.path.join(out, "raw.jsonl"), "w").close()
        try:
            refuse_earlier_results(parse_args(["--out", out]))
            check("an --out holding raw.jsonl is refused", "not refused", "refused")
        except SystemExit as e:
            check("an --out holding raw.jsonl is refused, named", out in str(e), True)
        refuse_earlier_results(parse_args(["--out", out, "--append"]))  # added to, when asked
    # Thread groups by 15-character names; CPU by thread across samples.
    check("groups by truncated names", [thread_group(n) for n in ("C2 CompilerThre", "ReadStage-3", "Native-Transpor",
                                                                  "RequestRespons", "epollEventLoopG", "flashchunk-writ",
                                                                  "G1 Conc#0", "ScheduledTasks:")],
          ["jit", "requests", "requests", "requests", "io", "flash_cache", "gc", "other"])
    before = {(1, 10): ("ReadStage-1", 100.0), (2, 10): ("C2 CompilerThre", 5.0), (3, 10): ("epollEventLoopG", 30.0)}
    after = {(1, 10): ("Native-Transpor", 100.5), (2, 10): ("C2 CompilerThre", 5.25), (4, 90): ("flashchunk-pio-", 0.1),
             (3, 95): ("epollEventLoopG", 0.2)}  # thread 3 ended, its id taken by a new one
    moved = thread_group_seconds(before, after)
    check("a renamed worker's difference under its new name, not its lifetime", round(moved["requests"], 3), 0.5)
    check("a thread born between samples: all of its CPU", (round(moved["flash_cache"], 3), round(moved["io"], 3)),
          (0.1, 0.2))
    rates = resource_rates({"at": 0.0, "cpu": 200.0, "data": (0, 0), "threads": before},
                           {"at": 2.0, "cpu": 202.0, "data": (0, 0), "threads": after})
    check("rates a second, the ended threads' share the rest of the process's CPU",
          (rates["threads"]["jit"], rates["threads"]["ended"]), (0.125, 0.475))
    work = parse_args(["--out", "unused", "--work", "relative/work"]).work
    check("--work made absolute (the node's yaml names the device by it)", work, os.path.join(os.getcwd(), "relative/work"))
    check("flash configuration is strict", "\n  strict: true\n" in flash_yaml("/flash.img", 1 << 30), True)
    check("extra flash settings go in the block",
          flash_yaml("/f", 4096, ("read_in_caller_thread: true",)).endswith("\n  read_in_caller_thread: true\n"), True)
    check("a device setting goes in the device's entry",
          "\n    - path: /f\n      capacity: 4096\n      engine: io_uring\n  queue_size: 1MiB\n"
          in flash_yaml("/f", 4096, ("queue_size: 1MiB",), ("engine: io_uring",)), True)
    check("same-disk regime by default", parse_args(["--out", "x"]).caps, [None])
    with tempfile.TemporaryDirectory() as tmp:
        configured = Node.__new__(Node)
        configured.yaml, configured.extra_options = os.path.join(tmp, "cassandra.yaml"), os.path.join(tmp, "jvm")
        configured.base_yaml = "cluster_name: x\n"
        configured.configure(None, node_settings=CONFIGS["flash-4x-keys"].node_settings)
        check("a configuration's own Cassandra settings go in cassandra.yaml", open(configured.yaml).read(),
              "cluster_name: x\nkey_cache_save_period: 30s\n")
        check("a stock node with no JVM options of its own has no extra options file",
              os.path.exists(configured.extra_options), False)
        configured.configure(flash_yaml("/f", 4096), jvm_options=CONFIGS["flash-4x-jit-sooner"].jvm_options)
        check("a configuration's JVM options come before the agent's",
              open(configured.extra_options).read().splitlines()[:2],
              ["-XX:CompileThresholdScaling=0.25", f"-javaagent:{node_control.AGENT_JAR}"])
        configured.configure(None, jvm_options=CONFIGS["flash-4x-jit-threads"].jvm_options)
        check("a stock node's JVM options, without the agent", open(configured.extra_options).read(),
              "-XX:CICompilerCount=3\n")
    a = {"at": 10.0, "cpu": 5.0, "data": (100, 4096 * 100), "io": {"read_ios": 50}}
    b = {"at": 12.0, "cpu": 6.5, "data": (1600, 4096 * 1600), "io": {"read_ios": 1550}}
    check("a ramp second's rates", resource_rates(a, b),
          {"cpu": 0.75, "data_read_iops": 750.0, "data_read_mb_s": 3.07, "cap_read_iops": 750.0})
    check("no capped group, no capped reads", "cap_read_iops" in resource_rates(dict(a, io=None), dict(b, io=None)), False)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "logs"))
        logged = Node.__new__(Node)
        logged.dir = tmp
        with open(os.path.join(tmp, "logs", "system.log"), "w") as f:
            f.write("INFO flash chunk cache: closed after a final checkpoint; hits flash=1\n")
        check("the closing counters", logged.closing_stats(), "hits flash=1")
        with open(os.path.join(tmp, "logs", "system.log"), "a") as f:
            f.write("WARN flash chunk cache: closed without a final checkpoint (the warning before says why); a "
                    "restart recovers what the last durable checkpoint named; hits flash=2\n")
        check("the closing counters when the last checkpoint failed", logged.closing_stats(), "hits flash=2")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        try:
            parse_args(["--help"])
        except SystemExit as e:
            check("--help exits cleanly", e.code, 0)
    check("--help shows every option (a stray % in a help text breaks it)", "--restart-hold" in shown.getvalue(), True)
    check("a sweep with scaled bandwidth", parse_args(["--out", "x", "--storage-iops", "0,3000"]).caps,
          [Cap(0, 0), Cap(3000, 125)])
    check("explicit bandwidth", parse_args(["--out", "x", "--storage-iops", "500", "--storage-mbps", "20"]).caps,
          [Cap(500, 20)])
    check("default cap", parse_args(["--out", "x", "--storage-iops", "default"]).caps, [capped_storage.default_cap()])
    check("restarts by default", parse_args(["--out", "x"]).restarts, ["clean", "kill"])
    check("no restarts", parse_args(["--out", "x", "--restarts", "none"]).restarts, [])
    check("uncompressed baseline has its own table", CONFIGS["base-u-M"].table, "raw")
    with tempfile.TemporaryDirectory() as tmp:
        node = Node.__new__(Node)
        node.yaml, node.extra_options, node.base_yaml = os.path.join(tmp, "y"), os.path.join(tmp, "o"), ""
        node.configure(flash_yaml("/f", 4096), os.path.join(tmp, "r.reads"))
        check("a recording flash node gets the recorder's option",
              f"-Dflashchunk.record_reads={tmp}/r.reads" in open(node.extra_options).read().splitlines(), True)
        node.configure(None)
        check("a stock node gets no agent options", os.path.exists(node.extra_options), False)
    first = {"records": 1, "caps": [[0, 0], [4000, 166.67]], "configs": ["a", "b"], "targets": [0], "workloads": ["w"],
             "restarts": [], "labels": {"a": "A"}, "tables": {"lz4": "L"}, "cap_probe_reads_per_s": {"4000": 3999},
             "rounds": 2}
    second = dict(first, caps=[[1000, 41.67], [0, 0]], configs=["b", "c"], labels={"c": "C"}, rounds=1,
                  cap_probe_reads_per_s={"1000": 1001})
    merged = merge_setup(first, second)
    check("sweep parts merged in order", merged["caps"], [[0, 0], [4000, 166.67], [1000, 41.67]])
    check("configurations merged", merged["configs"], ["a", "b", "c"])
    check("probes merged", merged["cap_probe_reads_per_s"], {"4000": 3999, "1000": 1001})
    check("rounds: the most", merged["rounds"], 2)
    try:
        merge_setup(first, dict(second, records=2))
        failures.append("results of another dataset size were merged")
    except SystemExit:
        pass
    evidence_self_test(check)
    for bad in (["--storage-iops", "500", "--storage-mbps", "1,2"], ["--storage-mbps", "20"],
                ["--configs", "flash-9x"], ["--tables", "snappy"], ["--restarts", "reboot"], ["--warmup", "soon"],
                ["--warmup", "steady", "--steady-window", "7"], ["--workloads", "paper-read100-nowhere"],
                ["--configs", "flash-4x-other"], ["--other-jar", __file__],
                ["--configs", "flash-4x-other", "--other-jar", "/nonexistent.jar"]):
        try:
            with contextlib.redirect_stderr(open(os.devnull, "w")):
                parse_args(["--out", "x", *bad])
            failures.append(f"{bad} was accepted")
        except SystemExit:
            pass
    other = parse_args(["--out", "x", "--configs", "flash-4x-other,flash-4x", "--other-jar", __file__])
    check("the other jar, absolute, for flash-4x-other alone", (other.other_jar, [c.other_jar for c in other.configs]),
          (os.path.abspath(__file__), [True, False]))
    return benchlib.finish_self_test(failures)


def evidence_self_test(check):
    """Flash sizes, the moving hot set's wiring, the steady warm-up and the per-run cache figures."""
    import types
    args = parse_args(["--out", "x", "--configs", "base-c-M,base-c-2M,base-c-4M,flash-0.5x,flash-1x,flash-4x"])
    check("configurations for the flash-size matrix", [c.name for c in args.configs],
          ["base-c-M", "base-c-2M", "base-c-4M", "flash-0.5x", "flash-1x", "flash-4x"])
    check("the baseline at 4M has 4M", CONFIGS["base-c-4M"].memory_factor, 4)
    check("flash at half the hot set is a flash configuration", CONFIGS["flash-0.5x"].flash, True)
    half, one = flash_capacity(args, 0.5), flash_capacity(args, 1)
    check("a half hot set's device in whole blocks", half % 4096, 0)
    check("a half hot set's device holds half of 1x's chunks", abs(2 * (half - (64 << 20)) - (one - (64 << 20))) < 8192,
          True)
    # The moving workload: the same hot set as paper-read100 until it moves; the harness places the move.
    settings = {w: dict(line.strip().split("=", 1) for line in open(os.path.join(WORKLOADS, w))
                        if "=" in line and not line.startswith("#")) for w in ("paper-read100", "paper-read100-moving")}
    check("the moving workload's first hot set is paper-read100's",
          {k: v for k, v in settings["paper-read100-moving"].items() if k != MOVE_SETTING}, settings["paper-read100"])
    check("a moving workload moves at the given second", move_options("paper-read100-moving", 52.5),
          ("-p", f"{MOVE_SETTING}=52.5"))
    check("a moving workload's warm-up clients never move", move_options("paper-read100-moving", None),
          ("-p", f"{MOVE_SETTING}=-1"))
    check("a steady workload gets no move option", move_options("paper-read100", 52.5), ())
    started = []
    global YcsbRun
    real, YcsbRun = YcsbRun, lambda *a: started.append(a[-1])
    try:
        bench = Bench.__new__(Bench)
        bench.args, bench.node = types.SimpleNamespace(clients=2, threads=4), None
        bench.clients(Case("lz4", None, "paper-read100-moving", 0), "ycsb", 100, move_after=0)
    finally:
        YcsbRun = real
    check("clients of a moving workload get the move", started, [(*STATUS_OPTIONS, "-p", f"{MOVE_SETTING}=0")])
    # Steady: four windows within a point; a creep of 0.9 points a window is not steady; no requests break a run.
    rising = [0.2, 0.5, 0.7, 0.8, 0.85, 0.88, 0.9, 0.905, 0.907, 0.906, 0.908]
    check("steady from the first of four windows within a point", steady_point(rising), 6)
    check("a slow creep is not steady", steady_point([0.800, 0.809, 0.818, 0.827, 0.836, 0.845]), None)
    check("a window without requests breaks a run", steady_point([0.9, 0.9, None, 0.9, 0.9, 0.9, 0.9]), 3)
    figures = steady_figures(rising, 30)
    check("fill time: the end of the steady stretch's first window", (figures["fill_s"], figures["steady_detected_s"]),
          (210, 300))
    check("never steady", steady_figures([0.1, 0.5, 0.9], 30)["fill_s"], None)
    check("a stock node: steady by its throughput, within 5% of the mean",
          steady_levels([None] * 6, [200.0, 300.0, 340.0, 350.0, 345.0, 352.0], False)[::2], ("throughput", 2))
    check("a throughput still climbing 6% a window is not steady",
          steady_point([100.0, 106.0, 112.4, 119.1, 126.2], spread=STEADY_THROUGHPUT_SPREAD, relative=True), None)
    check("a node with a chunk cache: by its hit ratio", steady_levels([0.5, 0.9, 0.9, 0.9, 0.9], [1, 2, 3, 4, 5], True)[::2],
          ("hit ratio", 1))
    check("a flash node whose first windows saw no chunk reads is still judged by its hit ratio",
          steady_levels([None, None, 0.9, 0.9, 0.9, 0.9], [500.0] * 6, True)[::2], ("hit ratio", 2))
    check("a window's hit ratio", window_hit_ratio({"requests": 100, "misses": 50}, {"requests": 300, "misses": 90}), 0.8)
    # The warm-up loop itself, on a fake node whose hit ratio climbs then holds, and on one that never settles.
    for levels, bound, want in (([0.5, 0.7, 0.9, 0.95, 0.95, 0.95, 0.95, 0.2], 600, (True, 120, 210, 7)),
                                ([0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6], 120, (False, None, None, 4))):
        rows, waited = [], []
        readings = iter([{"requests": 0, "misses": 0}] + [{"requests": 1000 * (i + 1), "misses": int(
            sum(1000 * (1 - x) for x in levels[:i + 1]))} for i in range(len(levels))])
        stopped = []
        fake_clients = types.SimpleNamespace(wait_for_window=waited.append, stop=lambda: stopped.append(1),
                                             wait=lambda: [""], texts=lambda: [""])
        bench = Bench.__new__(Bench)
        bench.args = types.SimpleNamespace(steady_window=30, steady_max=bound, restarts=[], measure=45)
        bench.node = types.SimpleNamespace(chunk_cache=lambda: next(readings))
        bench.clients = lambda *a, **k: fake_clients
        bench.keep_output, bench.record = lambda *a: None, rows.append
        with contextlib.redirect_stderr(io.StringIO()):
            warm, running, ended_at = bench.warm_until_steady(CONFIGS["flash-1x"], Case("lz4", None, "paper-read100", 0),
                                                              "ycsb")
        check(f"warm-up until steady ({'reached' if want[0] else 'bounded'})",
              (warm["steady_reached"], warm["fill_s"], warm["steady_detected_s"], len(waited)), want)
        check("the warm-up's clients go on, warm, into the measurement", (running is fake_clients, stopped, ended_at),
              (True, [], 30 * len(waited)))
        check("a warm-up row per warm-up", [r["phase"] for r in rows], ["warm-up"])
    # A stock node is judged by its clients' throughput, from their status lines; a moving workload's clients stop.
    def status(t, ops):
        return (f"2026-11-22 11:{t // 60:02d}:{t % 60:02d}:250 {t} sec: {t * 100} operations; {ops} current ops/sec; "
                f"[READ: Count={ops * 5}, Max=90000, Min=1000, Avg=3000, 90=1, 99=2]")
    rates = [100] * 6 + [200] * 6 + [300] * 6 + [360, 350, 355, 352, 351, 354] * 4
    lines, waited, stopped = [], [], []

    def advance(seconds):
        waited.append(seconds)
        lines.extend(status(t, rates[t // 5 - 1]) for t in range(5 * len(lines) + 5, seconds + 1, 5))
    fake_clients = types.SimpleNamespace(wait_for_window=advance, stop=lambda: stopped.append(1), wait=lambda: [""],
                                         texts=lambda: ["\n".join(lines)])
    bench = Bench.__new__(Bench)
    bench.args = types.SimpleNamespace(steady_window=30, steady_max=600, restarts=[], measure=45)
    bench.node = types.SimpleNamespace(chunk_cache=lambda: {"requests": 0, "misses": 0})
    bench.clients = lambda *a, **k: fake_clients
    rows = []
    bench.keep_output, bench.record = lambda *a: None, rows.append
    with contextlib.redirect_stderr(io.StringIO()):
        warm, running, ended_at = bench.warm_until_steady(CONFIGS["base-c-2M"], Case("lz4", None, "paper-read100", 0),
                                                          "ycsb")
    check("a stock node: steady by its throughput, from the clients' status lines",
          (warm["steady_by"], warm["fill_s"], ended_at), ("throughput", 120, 210))
    lines.clear()
    with contextlib.redirect_stderr(io.StringIO()):
        _, running, _ = bench.warm_until_steady(CONFIGS["base-c-2M"], Case("lz4", None, "paper-read100-moving", 0),
                                                "ycsb")
    check("a moving workload's warm-up clients stop (its move is set when clients start)", (running, stopped), (None, [1]))
    for bad in (["--record-configs", "flash-1x"], ["--record-reads", "r", "--record-configs", "base-c-M"]):
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                parse_args(["--out", "x", *bad])
            check(f"refused: {' '.join(bad)}", False, True)
        except SystemExit:
            pass
    steady = parse_args(["--out", "x", "--warmup", "steady", "--steady-max", "900"])
    check("--warmup steady", (steady.steady, steady.warmup), (True, 900))
    check("--warmup in seconds as before", (parse_args(["--out", "x"]).steady, parse_args(["--out", "x"]).warmup),
          (False, 180))
    # Per-run cache figures from the bean's counters at both ends of a window.
    summary = "hits memory=0 dram=0 flash=9, misses=1, puts=5 (...), flash writes={} ({} B, reinserted {}), device"
    before_bean = {"Hits": 100, "Misses": 100, "Puts": 50, "AdmissionRefusals": 5,
                   "FlashBytesWritten": 1000, "SegmentBytesWritten": 800, "CheckpointBytesWritten": 100,
                   "Summary": summary.format(40, 7, 10)}
    before = flash_counters(before_bean)
    after_bean = {"Hits": 1000, "Misses": 200, "Puts": 150, "DroppedEvictedBeforeWrite": 25,  # a build before 1.0
                  "FlashBytesWritten": 1000 + 3 * 65536 * 100, "SegmentBytesWritten": 800 + 2 * 65536 * 100,
                  "CheckpointBytesWritten": 100 + 65536 * 3,
                  "Summary": summary.format(140, 9, 30)}
    after = flash_counters(after_bean)
    check("appended and reinserted from the Summary", (after["appended"], after["reinserted"]), (140, 30))
    got = cache_figures(before, after, 65536)
    check("flash hit ratio over the window", got["flash_hit_ratio"], 0.9)
    check("admitted chunks: appended less reinserted", got["admitted_chunks"], 80)
    check("flash bytes per admitted byte", got["flash_written_per_admitted_byte"], 300 / 80)
    check("segment bytes per admitted byte", got["segment_written_per_admitted_byte"], 200 / 80)
    check("reinsertions", (got["reinserted"], got["reinserted_share"]), (20, 0.2))
    check("checkpoints' share of the flash bytes written", got["checkpoint_share_of_flash_writes"], 1 / 100)
    check("no figures for a stock node", cache_figures({}, {}, 65536), {})
    check("one device: no share of the last one", got["last_device_read_share"], None)
    two = [{"name": "io.flashchunk:type=FlashChunkDevice,space=1", "HitReads": 300},
           {"name": "io.flashchunk:type=FlashChunkDevice,space=0", "HitReads": 500}]
    moved = cache_figures(flash_counters(dict(before_bean, HotChunksMoved=5), two),
                          flash_counters(dict(after_bean, HotChunksMoved=45),
                                         [dict(two[0], HitReads=400), dict(two[1], HitReads=800)]), 65536)
    check("hot chunks moved over the window", moved["hot_chunks_moved"], 40)
    check("chunks moved are not admitted ones", moved["admitted_chunks"], 80 - 40)
    check("the last device's share of the flash reads over the window (the beans in device order)",
          moved["last_device_read_share"], 100 / 400)
    check("an unreadable bean gives no figures", flash_counters({}), {})
    check("an uncompressed table's chunk size is unknown", cache_figures(before, after, None)["flash_written_per_admitted_byte"],
          None)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    main(sys.argv[1:])
