#!/usr/bin/env python3
"""Capped storage for the YCSB benchmark: Cassandra's data on a block device of its own, slowed to a
cloud volume's rate, while the flash cache's device stays uncapped.

- LoopVolume: an ext4 file system on a loop device (`losetup --direct-io=on`, so the loop's reads
  go to its backing file with O_DIRECT and no second page cache outside the node's memory cgroup
  serves them), mounted for the run and detached afterwards.
- LoopDevice: a raw loop device over an image file (LoopVolume's, and a flash device to cap on its own).
- IoCapGroup: a cgroup v1 blkio group whose `blkio.throttle.*` caps apply to that device (and to any
  other it is told to cap, such as a flash device slowed during a run); the
  node runs inside it (scripts/cassandra-node.sh start --blkio-cgroup NAME), so its direct and
  buffered reads (page-cache misses and read-ahead) are capped, and `blkio.throttle.io_serviced`
  counts what the device served it.
- probe(): random buffered reads from inside the group, to check that the cap holds them.

The default cap is a cloud volume's baseline scaled to this machine: a gp3 volume serves 3,000 IOPS
and 125 MiB/s without extra charge, and the smallest node size recommended for production Cassandra
has 8 vCPUs; so a core gets 375 IOPS and 15.6 MiB/s, and this node's cores get their share.

`python3 capped_storage.py --self-test` (root) attaches a small volume, caps it, probes it and
checks that everything is detached and removed again.
"""
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

BLKIO_ROOT = "/sys/fs/cgroup/blkio"
CLOUD_VOLUME_IOPS = 3000
CLOUD_VOLUME_MIB_S = 125
CLOUD_NODE_CORES = 8


@dataclass(frozen=True)
class Cap:
    """Read and write caps of the data device: iops 0 means uncapped."""
    iops: int
    mib_s: float

    @staticmethod
    def scaled(iops):
        """A cap of iops with the cloud volume's bandwidth per I/O (125 MiB/s for 3,000 IOPS)."""
        return Cap(iops, round(iops * CLOUD_VOLUME_MIB_S / CLOUD_VOLUME_IOPS, 2))

    @property
    def bytes_per_s(self):
        return int(self.mib_s * 2**20)

    def label(self):
        return "uncapped" if not self.iops else f"{self.iops:,} IOPS, {self.mib_s:g} MiB/s"


def default_cap(cores=None):
    """The cloud volume's baseline, a core's share of it times this machine's cores."""
    cores = cores or os.cpu_count()
    return Cap.scaled(CLOUD_VOLUME_IOPS * cores // CLOUD_NODE_CORES)


def run(command):
    result = subprocess.run(command, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {result.returncode}): {result.stdout.strip()}")
    return result.stdout


class LoopDevice:
    """A loop device over a sparse image file (`losetup --direct-io=on`: its reads reach the file with
    O_DIRECT, no second page cache), attached while in use; the image outlives it."""

    def __init__(self, image, size_bytes):
        self.image, self.size_bytes = image, size_bytes
        self.device = None

    def __enter__(self):
        if not os.path.exists(self.image):
            with open(self.image, "wb") as f:
                f.truncate(self.size_bytes)
        elif os.path.getsize(self.image) < self.size_bytes:
            raise RuntimeError(f"{self.image} holds {os.path.getsize(self.image)} bytes, less than the "
                               f"{self.size_bytes} asked for: remove it (its data is reloaded) or ask for less")
        self.device = run(["losetup", "-f", "--show", "--direct-io=on", self.image]).strip()
        return self

    def __exit__(self, *exc):
        if self.device:
            subprocess.run(["losetup", "-d", self.device], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.device = None

    @property
    def disk(self):
        """The device's name in /proc/diskstats and /sys/block (loopN)."""
        return os.path.basename(self.device)

    @property
    def majmin(self):
        rdev = os.stat(self.device).st_rdev
        return f"{os.major(rdev)}:{os.minor(rdev)}"


class LoopVolume(LoopDevice):
    """An ext4 file system on a loop device over a sparse image file, mounted while in use.

    The image (and so the data on it) outlives the run; the loop device and the mount do not."""

    def __init__(self, image, mountpoint, size_bytes):
        super().__init__(image, size_bytes)
        self.mountpoint = mountpoint

    def __enter__(self):
        super().__enter__()
        try:
            if not self._has_fs():
                # A new image: no reserved blocks, inode tables initialised lazily (seconds, not minutes).
                run(["mkfs.ext4", "-q", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1", self.device])
            os.makedirs(self.mountpoint, exist_ok=True)
            run(["mount", "-o", "noatime", self.device, self.mountpoint])
        except Exception:
            super().__exit__()
            raise
        return self

    def _has_fs(self):
        return subprocess.run(["blkid", "-p", self.device], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    def __exit__(self, *exc):
        try:
            # Blocks ext4 freed (compactions, deleted tables) become holes in the sparse image again.
            subprocess.run(["fstrim", self.mountpoint], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for attempt in range(50):
                result = subprocess.run(["umount", self.mountpoint], text=True, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
                if result.returncode == 0 or not os.path.ismount(self.mountpoint):
                    break
                time.sleep(0.2)  # a process of the node may still be closing its files
            else:
                raise RuntimeError(f"cannot unmount {self.mountpoint}: {result.stdout.strip()}")
        finally:
            super().__exit__()


class IoCapGroup:
    """A cgroup v1 blkio group whose caps apply to one device; created on enter, removed on exit."""

    FILES = {"read_iops_device": "iops", "write_iops_device": "iops",
             "read_bps_device": "bytes_per_s", "write_bps_device": "bytes_per_s"}

    def __init__(self, name, majmin, root=BLKIO_ROOT):
        self.name, self.majmin = name, majmin
        self.path = os.path.join(root, name)

    def __enter__(self):
        if not os.path.isdir(os.path.dirname(self.path)):
            raise RuntimeError(f"no cgroup v1 blkio controller at {os.path.dirname(self.path)}")
        os.makedirs(self.path, exist_ok=True)
        # a group left by a run that was killed may still cap devices whose numbers are now another's
        for name in self.FILES:
            with open(os.path.join(self.path, f"blkio.throttle.{name}")) as f:
                stale = [line.split()[0] for line in f if line.strip()]
            for majmin in stale:
                with open(os.path.join(self.path, f"blkio.throttle.{name}"), "w") as f:
                    f.write(f"{majmin} 0\n")
        self.set(Cap(0, 0))
        return self

    def __exit__(self, *exc):
        # The kernel lets go of a killed task's cgroup a moment after the task is gone.
        for attempt in range(100):
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"cgroup {self.path} still has processes; left in place")

    def set(self, cap):
        """Caps reads and writes on the device; Cap(0, 0) lifts every cap (a 0 rule removes it)."""
        self.set_device(self.majmin, cap)

    def set_device(self, majmin, cap):
        """Caps reads and writes on another device (major:minor) for the group's tasks; Cap(0, 0) lifts
        them. A rule outlives its device: lift it before the device goes (its number is reused)."""
        for name, field in self.FILES.items():
            value = getattr(cap, field) if cap.iops else 0
            with open(os.path.join(self.path, f"blkio.throttle.{name}"), "w") as f:
                f.write(f"{majmin} {value}\n")

    def join(self, pid):
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(f"{pid}\n")

    def counters(self):
        """{'read_ios', 'write_ios', 'read_bytes', 'write_bytes'} the device served the group so far."""
        result = {}
        for file, unit in (("io_serviced", "ios"), ("io_service_bytes", "bytes")):
            with open(os.path.join(self.path, f"blkio.throttle.{file}")) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 3 and parts[0] == self.majmin and parts[1] in ("Read", "Write"):
                        result[f"{parts[1].lower()}_{unit}"] = int(parts[2])
        for key in ("read_ios", "write_ios", "read_bytes", "write_bytes"):
            result.setdefault(key, 0)
        return result


def drop_page_cache():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


PROBE = """
import os, random, sys, time
group, path, seconds, block = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
with open(os.path.join(group, "cgroup.procs"), "w") as f:
    f.write(str(os.getpid()))
fd = os.open(path, os.O_RDONLY)
blocks = os.lseek(fd, 0, os.SEEK_END) // block  # a block device: its size, which fstat does not give
reads, end = 0, time.monotonic() + seconds
while time.monotonic() < end:
    os.pread(fd, block, random.randrange(blocks) * block)
    reads += 1
print(reads / seconds)
"""


def probe(group, path, seconds=3.0, block=4096):
    """Random buffered reads per second of `path` from inside the group, with the page cache dropped:
    each read misses, so each is at least one I/O the cap must hold."""
    drop_page_cache()
    out = run([sys.executable, "-c", PROBE, group.path, path, str(seconds), str(block)])
    return float(out.strip())


def self_test():
    """Attaches a 256 MiB volume, writes a file, and checks: a cap of 200 IOPS holds random buffered reads
    near 200/s and the group's counters saw them; without the cap they run much faster; afterwards the
    loop device, the mount and the cgroup are gone."""
    import benchlib
    failures = []
    check = benchlib.checker(failures)
    if os.geteuid() != 0:
        print("capped_storage self-test: needs root (losetup, mount, cgroups)", file=sys.stderr)
        return 1
    check("default cap on 2 cores", default_cap(2), Cap(750, 31.25))
    check("scaled bandwidth", Cap.scaled(3000).mib_s, 125)
    check("label", Cap.scaled(1000).label(), "1,000 IOPS, 41.67 MiB/s")
    with tempfile.TemporaryDirectory() as work:
        image, mountpoint = os.path.join(work, "volume.img"), os.path.join(work, "mnt")
        group_name = f"capped-storage-self-test-{os.getpid()}"
        with LoopVolume(image, mountpoint, 256 << 20) as volume:
            check("mounted", os.path.ismount(mountpoint), True)
            data = os.path.join(mountpoint, "data")
            with open(data, "wb") as f:
                for _ in range(64):
                    f.write(os.urandom(1 << 20))
            with IoCapGroup(group_name, volume.majmin) as group, \
                    LoopDevice(os.path.join(work, "second.img"), 64 << 20) as second:
                # a second device capped for the same group, then lifted: the volume's cap is its own
                with open(second.device, "wb") as f:
                    f.write(os.urandom(64 << 20))
                group.set_device(second.majmin, Cap(200, 10))
                try:
                    second_capped = probe(group, second.device, seconds=2.0)
                finally:
                    group.set_device(second.majmin, Cap(0, 0))
                second_lifted = probe(group, second.device, seconds=1.5)
                print(f"capped_storage self-test: a second device's buffered 4 KiB reads {second_capped:,.0f}/s "
                      f"at a 200 IOPS cap, {second_lifted:,.0f}/s lifted")
                check("a second device's cap holds its reads", 100 <= second_capped <= 240, True)
                check("a lifted cap lets them run", second_lifted > 3 * second_capped, True)
                uncapped = probe(group, data, seconds=1.5)
                before = group.counters()
                group.set(Cap(200, 10))
                capped = probe(group, data, seconds=2.5)
                served = group.counters()["read_ios"] - before["read_ios"]
                print(f"capped_storage self-test: buffered 4 KiB reads {uncapped:,.0f}/s uncapped, "
                      f"{capped:,.0f}/s at a 200 IOPS cap; the device served the group {served} reads")
                check("a 200 IOPS cap holds buffered reads", 100 <= capped <= 240, True)
                check("uncapped reads are much faster", uncapped > 3 * capped, True)
                check("the counters saw the capped reads", served >= capped * 2.5 * 0.9, True)
            check("cgroup removed", os.path.exists(group.path), False)
        check("unmounted", os.path.ismount(mountpoint), False)
        check("loop device detached", run(["losetup", "-j", image]).strip(), "")
        check("second loop device detached", run(["losetup", "-j", os.path.join(work, "second.img")]).strip(), "")
        # The image keeps its file system: a second attach mounts it without formatting.
        with LoopVolume(image, mountpoint, 256 << 20):
            check("data kept across attaches", os.path.getsize(os.path.join(mountpoint, "data")), 64 << 20)
    return benchlib.finish_self_test(failures)


if __name__ == "__main__":
    import benchlib
    sys.exit(benchlib.self_test_only(sys.argv, __doc__, self_test))
