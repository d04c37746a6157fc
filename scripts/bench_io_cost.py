#!/usr/bin/env python3
"""What one read from a device costs the CPU, by read size: fio, one thread, synchronous O_DIRECT reads
(psync, queue depth 1) of a file, one run per block size. The CPU a flash cache hit spends in the kernel
is this cost; if it does not grow with the size, halving the bytes read (chunks kept compressed on
flash) saves no CPU, and only fewer reads do.

    python3 scripts/bench_io_cost.py [--file PATH] [--size 4G] [--seconds 15] [--sizes 4k,16k,64k,128k] [--out DIR]
    python3 scripts/bench_io_cost.py --self-test

Writes DIR/fio-<size>.json (fio's own output), DIR/table.md and DIR/machine.txt; prints the table.
Default DIR: target/results/io-cost-<UTC time>. The file is made (sparse-free, written once) if it is
missing and removed afterwards unless it existed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import benchlib

log = benchlib.logger("bench_io_cost")


def cost(fio_json):
    """(reads/s, MiB/s, CPU µs per read) of one fio job's JSON output: the job's user and system CPU
    share of its run time, divided by the reads it completed."""
    job = fio_json["jobs"][0]
    read = job["read"]
    seconds = job["job_runtime"] / 1000.0
    ios = read["total_ios"]
    if ios == 0 or seconds == 0:
        raise ValueError("fio completed no reads")
    cpu_seconds = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * seconds
    return ios / seconds, read["io_kbytes"] / 1024.0 / seconds, cpu_seconds / ios * 1e6


def run_fio(path, block_size, seconds):
    command = ["fio", "--name=cost", f"--filename={path}", "--rw=randread", f"--bs={block_size}",
               "--ioengine=psync", "--direct=1", "--iodepth=1", "--numjobs=1", "--time_based",
               f"--runtime={seconds}", "--output-format=json"]
    return command, json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def table(rows):
    lines = ["| read size | reads/s | MiB/s | CPU µs per read |", "|---|---:|---:|---:|"]
    lines += [f"| {size} | {iops:,.0f} | {mib:,.1f} | {us:.1f} |" for size, (iops, mib, us) in rows]
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", default="target/io-cost.img")
    p.add_argument("--size", default="4G", help="the file's size, if it is made")
    p.add_argument("--seconds", type=int, default=15)
    p.add_argument("--sizes", default="4k,16k,32k,64k,128k")
    p.add_argument("--out", default="target/results/io-cost-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        return self_test()
    if shutil.which("fio") is None:
        sys.exit("bench_io_cost: fio is not installed (apt-get install fio)")
    os.makedirs(args.out, exist_ok=True)
    made = not os.path.exists(args.file)
    if made:
        os.makedirs(os.path.dirname(os.path.abspath(args.file)), exist_ok=True)
        log(f"writing {args.size} to {args.file} (reads of holes would not reach the device)")
        subprocess.run(["fio", "--name=fill", f"--filename={args.file}", f"--size={args.size}", "--rw=write",
                        "--bs=1M", "--direct=1", "--output-format=terse"], check=True, stdout=subprocess.DEVNULL)
    rows = []
    try:
        for size in args.sizes.split(","):
            log(f"{size}: {args.seconds} s of random O_DIRECT reads, psync, queue depth 1")
            command, result = run_fio(args.file, size, args.seconds)
            json.dump(result, open(os.path.join(args.out, f"fio-{size}.json"), "w"), indent=1)
            rows.append((size, cost(result)))
    finally:
        if made:
            os.remove(args.file)
    device = subprocess.run(["df", "--output=source", args.file if not made else os.path.dirname(os.path.abspath(args.file))],
                            capture_output=True, text=True).stdout.split()[-1]
    text = [f"Random O_DIRECT reads of a file on {device}, one thread, psync (queue depth 1), {args.seconds} s per "
            f"size (`{' '.join(command[:1] + command[2:])}`, bs per row):", ""] + table(rows)
    open(os.path.join(args.out, "table.md"), "w").write("\n".join(text) + "\n")
    open(os.path.join(args.out, "machine.txt"), "w").write(
        subprocess.run(["bash", "-c", "nproc; free -g; uname -r; fio --version"], capture_output=True, text=True).stdout
        + "command: " + " ".join(sys.argv) + "\n")
    print("\n".join(text))
    log(f"results: {args.out}")
    return 0


def self_test():
    failures = []
    check = benchlib.checker(failures)
    job = {"jobs": [{"job_runtime": 10000, "usr_cpu": 5.0, "sys_cpu": 25.0,
                     "read": {"total_ios": 100000, "io_kbytes": 6400000}}]}
    iops, mib, us = cost(job)
    check("reads per second", iops, 10000.0)
    check("MiB per second", mib, 625.0)
    check("CPU µs per read: 30% of 10 s over 100,000 reads", us, 30.0)
    check("table row", table([("64k", (iops, mib, us))])[-1], "| 64k | 10,000 | 625.0 | 30.0 |")
    try:
        cost({"jobs": [dict(job["jobs"][0], read={"total_ios": 0, "io_kbytes": 0})]})
        failures.append("no reads: no error")
    except ValueError:
        pass
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    sys.exit(main())
