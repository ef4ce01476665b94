"""
What the Python guest tests share: TAP output, the D-Bus calls they make to
mountwatchd (busctl, gdbus), /proc/self/mountinfo parsed into the daemon's
Mount properties and compared with its table, and the mount storms below
TOP. Installed beside the tests (/usr/libexec/mountwatch/tests/); a test
imports it with its own directory on sys.path.
"""
import contextlib, ctypes, errno, json, os, re, signal, subprocess, time

BUS = "org.mountwatch.MountWatch1"
PATH = "/org/mountwatch/MountWatch1"
MGR = "org.mountwatch.MountWatch1.Manager"
MNT = "org.mountwatch.MountWatch1.Mount"
CONF = "/etc/mountwatch/mountwatchd.conf"
# The backend the runner started mountwatchd with (vm/guest/tests' extra passes).
BACKEND = os.environ.get("MOUNTWATCH_TEST_BACKEND", "watch_queue")
SYS_FSINFO = 491
# vm/run's factor for a slow kernel (the debug kernel: 4), else 1
try:
    with open("/mnt/host/timeout-factor") as f:
        SLOW = int(f.read())
except (OSError, ValueError):
    SLOW = 1

# TAP, from tests/tap.py (installed beside this module).
from tap import finish, ok, skip  # noqa: F401 (re-exported for the tests)


TESTS = []


def test(f):
    """Decorator: f is a group of cases, run in order by run_tests."""
    TESTS.append(f)
    return f


def run_groups(groups):
    """
    Runs each group; one that raises is one failure and the rest still run.
    Each group's name and wall time are TAP comments (where a slow kernel
    spends its time).
    MOUNTWATCH_TEST_ONLY=NAME,NAME runs only the groups of those names (to
    try one while working on it: vm/run -- env MOUNTWATCH_TEST_ONLY=...
    /usr/libexec/mountwatch/tests/daemon-api.test).
    """
    only = [n for n in os.environ.get("MOUNTWATCH_TEST_ONLY", "").split(",") if n]
    for g in groups:
        if only and g.__name__ not in only:
            continue
        t0 = time.time()
        print("# %s" % g.__name__, flush=True)
        try:
            g()
        except Exception as e:
            ok(False, "%s ran to the end" % g.__name__, repr(e))
        print("# %s: %.0f s" % (g.__name__, time.time() - t0), flush=True)


def run_tests(groups, without_kernel=None):
    """
    run_groups(groups), or on a kernel without fsinfo(2) every group skipped,
    after without_kernel() if given (the one check that makes sense there).
    Returns the exit status.
    """
    if not kernel_support():
        if without_kernel:
            without_kernel()
        for g in groups:
            skip(g.__name__, "this kernel has no fsinfo(2) (ENOSYS)")
    else:
        run_groups(groups)
    return finish()


def kernel_support():
    r = libc.syscall(ctypes.c_long(SYS_FSINFO), ctypes.c_int(-100), ctypes.c_char_p(b"/"), None,
                     ctypes.c_size_t(0), None, ctypes.c_size_t(0))
    return not (r == -1 and ctypes.get_errno() == errno.ENOSYS)


# Processes and the bus.

def run(*args, check=False, timeout=60, user=None, input=None):
    """
    Runs a command, output captured; timeout is for a normal kernel, and
    SLOW times as long (on the debug kernel a daemon-reload of PID 1 alone
    can take a minute). Raises subprocess.TimeoutExpired after it.
    """
    if user:
        args = ("runuser", "-u", user, "--") + args
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout * SLOW, input=input)
    if check and p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), p.stderr.strip()))
    return p


def busctl(*args, user=None, timeout=60):
    return run("busctl", "--json=short", *args, user=user, timeout=timeout)


def call(member, sig="", *args, user=None):
    """A Manager method by busctl: (the process, the reply's data or None)."""
    p = busctl("call", BUS, PATH, MGR, member, *([sig] + [str(a) for a in args] if sig else []), user=user)
    return p, (json.loads(p.stdout)["data"] if p.returncode == 0 and p.stdout.strip() else None)


def gdbus(member, *args, timeout=60):
    """gdbus prints the D-Bus error name, which busctl does not."""
    return run("gdbus", "call", "--system", "--dest", BUS, "--object-path", PATH, "--method",
               MGR + "." + member, *[str(a) for a in args], timeout=timeout)


def prop(name, iface=MGR, path=PATH, auto_start=True):
    """A property, or None; auto_start=False: no bus activation (the unit may be masked)."""
    p = busctl(*(() if auto_start else ("--auto-start=no",)), "get-property", BUS, path, iface, name)
    return json.loads(p.stdout)["data"] if p.returncode == 0 else None


def main_pid():
    return int(run("systemctl", "show", "-P", "MainPID", "mountwatchd").stdout.strip() or 0)


def restarts():
    """How often systemd restarted mountwatchd (NRestarts)."""
    return int(run("systemctl", "show", "-P", "NRestarts", "mountwatchd").stdout.strip() or 0)


def proc_status(pid):
    """/proc/PID/status as {field: value}."""
    with open("/proc/%d/status" % pid) as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def rss_kib(pid):
    """Resident memory of pid in KiB."""
    return int(proc_status(pid)["VmRSS"].split()[0])


def cpu_seconds(pid):
    """User + system CPU time of a process, in seconds."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_cpu_idle(pid, timeout, quiet=0.2, period=2.0):
    """
    Waits until pid uses less than quiet s of CPU in period s; returns the
    wait, or None after timeout s. For PID 1, which re-reads mountinfo at each
    change of its namespace's mounts without a job to show for it.
    """
    t0 = time.time()
    last = cpu_seconds(pid)
    while time.time() - t0 < timeout:
        time.sleep(period)
        now = cpu_seconds(pid)
        if now - last < quiet:
            return time.time() - t0
        last = now
    return None


def pid1_idle(timeout=600):
    """Until PID 1 has no jobs queued (it works through every mount change of its namespace)."""
    end = time.time() + timeout
    while time.time() < end:
        if not run("systemctl", "list-jobs", "--no-legend").stdout.strip():
            return True
        time.sleep(2)
    return False


@contextlib.contextmanager
def frozen_pid1(timeout=20):
    """
    PID 1 frozen (its cgroup, init.scope) for the block, thawed after it
    whatever happens: mount changes made meanwhile queue up unread. Yields
    None when frozen, or why not (no cgroup freezer, no freeze in time).
    """
    freeze = "/sys/fs/cgroup/init.scope/cgroup.freeze"
    events = "/sys/fs/cgroup/init.scope/cgroup.events"
    if not os.path.exists(freeze):
        yield "no %s" % freeze
        return
    with open(freeze, "w") as f:
        f.write("1")
    try:
        end = time.time() + timeout * SLOW
        why = None
        while "frozen 1" not in open(events).read():
            if time.time() > end:
                why = "init.scope did not freeze in %d s" % (timeout * SLOW)
                break
            time.sleep(0.05)
        yield why
    finally:
        with open(freeze, "w") as f:
            f.write("0")


CLONE_NEWNS = 0x00020000


@contextlib.contextmanager
def own_daemon(log_path, timeout=60):
    """
    A mountwatchd of the test's own, in a mount namespace of its own
    (propagation private), on the system bus under the usual name while the
    unit is stopped and masked (so not bus-activated); with --backend= of the
    backend pass the runner chose. Yields its Popen. Mounts made there -
    with in_mount_ns(pid) - cost PID 1 nothing: systemd 252 re-reads all of
    its namespace's mountinfo at each change (10,000 binds and their umount
    cost it ~600 s of CPU under TCG), which would hold the guest for minutes.
    """
    pid1_idle()
    run("systemctl", "stop", "mountwatchd", timeout=300)
    run("systemctl", "mask", "--runtime", "mountwatchd", timeout=300)
    log = open(log_path, "w")
    args = ["unshare", "-m", "--propagation", "private", "/usr/sbin/mountwatchd"]
    if "MOUNTWATCH_TEST_BACKEND" in os.environ:
        args.append("--backend=" + BACKEND)
    daemon = subprocess.Popen(args, stdout=log, stderr=log)
    try:
        end = time.time() + timeout
        while prop("Version", auto_start=False) is None and daemon.poll() is None and time.time() < end:
            time.sleep(0.5)
        yield daemon
    finally:
        daemon.terminate()
        try:
            daemon.wait(300)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        log.close()
        # a daemon-reload, as the mask: the same time (over 60 s once on a loaded host)
        run("systemctl", "unmask", "--runtime", "mountwatchd", timeout=300)
        run("systemctl", "start", "mountwatchd", timeout=120)


@contextlib.contextmanager
def in_mount_ns(pid):
    """Moves this (single-threaded) process into pid's mount namespace, and back after."""
    home = os.open("/proc/self/ns/mnt", os.O_RDONLY)
    there = os.open("/proc/%d/ns/mnt" % pid, os.O_RDONLY)
    cwd = os.getcwd()
    try:
        if libc.setns(there, CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "setns(/proc/%d/ns/mnt)" % pid)
        yield
    finally:
        if libc.setns(home, CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the test's mount namespace")
        os.chdir(cwd)
        os.close(there)
        os.close(home)


def journal_since(since):
    return run("journalctl", "-u", "mountwatchd", "--no-pager", "-o", "cat", "--since", since).stdout


def subscriber(user=None):
    """
    A client subscribed to the daemon's per-mount signals until
    stop_subscriber(): the daemon sends them only while someone has called
    Subscribe(), and busctl or gdbus monitor only listen. It is "mountwatchctl
    monitor --per-mount" (output to a file, as USER if given), which prints
    its header once it has subscribed and listed the mounts; this returns
    after that.
    """
    f = open("/run/mw-subscriber-%d.out" % os.getpid(), "w+")
    p = subprocess.Popen((["runuser", "-u", user, "--"] if user else []) + ["mountwatchctl", "monitor", "--per-mount"],
                         stdout=f, stderr=subprocess.STDOUT)
    end = time.time() + 60
    while "EVENT" not in open(f.name).read() and p.poll() is None and time.time() < end:
        time.sleep(0.1)
    return p, f


@contextlib.contextmanager
def daemon_stopped():
    """mountwatchd stopped (SIGSTOP) for the block: it reads nothing meanwhile.
    Keep the block well inside its 30 s watchdog."""
    pid = main_pid()
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def subscriber_output(sub):
    """What the subscriber's mountwatchctl monitor has printed so far."""
    return open(sub[1].name).read()


def stop_subscriber(sub):
    p, f = sub
    p.terminate()
    p.wait(timeout=20)
    f.close()
    os.unlink(f.name)


def monitor():
    """
    busctl monitor of the Manager's signals, into a file (a pipe that nobody
    reads during a storm would fill, block busctl, and lose signals), and a
    subscriber() that makes the daemon send them.
    """
    f = open("/run/mw-monitor-%d.json" % os.getpid(), "w+")
    p = subprocess.Popen(["stdbuf", "-oL", "busctl", "monitor", "--json=short",
                          "--match=type='signal',sender='%s',interface='%s'" % (BUS, MGR)],
                         stdout=f, stderr=subprocess.DEVNULL, text=True)
    time.sleep(1)  # busctl is listening
    return (p, subscriber()), f


def stop_monitor(p, f):
    """Stops a monitor(); what it saw, one JSON message a line."""
    p, sub = p
    stop_subscriber(sub)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=20)
    f.seek(0)
    out = f.read()
    f.close()
    os.unlink(f.name)
    return out


# The mount table, as the kernel and as the daemon see it.

def unescape(s):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def mountinfo():
    """/proc/self/mountinfo as {mount ID: the daemon's Mount properties}."""
    res = {}
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        i = f.index("-")
        propagation = "private"
        peer = master = 0
        for o in f[6:i]:
            if o.startswith("shared:"):
                peer = int(o[7:])
            elif o.startswith("master:"):
                master = int(o[7:])
            elif o == "unbindable":
                propagation = "unbindable"
        if propagation != "unbindable":
            propagation = "shared" if peer else ("slave" if master else "private")
        res[int(f[0])] = dict(ParentId=int(f[1]), Device=f[2], Root=unescape(f[3]),
                              MountPoint=unescape(f[4]), Options=f[5], FsType=f[i + 1].split(".")[0],
                              Source=unescape(f[i + 2]), SuperOptions=f[i + 3],
                              Propagation=propagation, PeerGroup=peer, MasterGroup=master)
    return res


def daemon_mounts():
    """The daemon's table by GetManagedObjects: {MountId: properties + "path"}, or None."""
    p = busctl("call", BUS, PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", timeout=120)
    if p.returncode != 0:
        return None
    objs = json.loads(p.stdout)["data"][0]
    res = {}
    for path, ifaces in objs.items():
        if MNT in ifaces:
            props = {k: v["data"] for k, v in ifaces[MNT].items()}
            props["path"] = path
            res[props["MountId"]] = props
    return res


# What autofs changes by ioctl (catatonic mode, a new pipe, the timeout): the
# series posts SB_CHANGED for it, but mountinfo's poll() wakes only for mount
# events, so the mountinfo backend sees it at the next one.
AUTOFS_IOCTL_OPTIONS = re.compile(r"(fd|pgrp|timeout)=-?\d+")
FIELDS = ["ParentId", "MountPoint", "Root", "FsType", "Source", "Options", "SuperOptions",
          "Device", "Propagation", "PeerGroup", "MasterGroup"]


def compare_tables():
    """Differences between mountinfo and the daemon's table, as text lines."""
    want, have = mountinfo(), daemon_mounts()
    if have is None:
        return ["GetManagedObjects failed"]
    diffs = []
    for mid in sorted(set(want) | set(have)):
        if mid not in have:
            diffs.append("missing in daemon: %d %s" % (mid, want[mid]["MountPoint"]))
        elif mid not in want:
            diffs.append("extra in daemon: %d %s" % (mid, have[mid].get("MountPoint")))
        else:
            for k in FIELDS:
                if (k == "ParentId" and want[mid][k] not in want and have[mid].get(k) == mid):
                    continue  # a parent we cannot see: fsinfo names the mount itself
                if (k == "SuperOptions" and BACKEND == "mountinfo" and want[mid]["FsType"] == "autofs"
                        and AUTOFS_IOCTL_OPTIONS.sub("", want[mid][k]) == AUTOFS_IOCTL_OPTIONS.sub("", have[mid].get(k, ""))):
                    continue  # changed by ioctl: watch_queue hears it, mountinfo's poll() does not
                if want[mid][k] != have[mid].get(k):
                    diffs.append("%d %s: %s mountinfo=%r daemon=%r" % (mid, want[mid]["MountPoint"], k,
                                                                      want[mid][k], have[mid].get(k)))
    return diffs


class FsinfoParams(ctypes.Structure):
    _fields_ = [("resolve_flags", ctypes.c_uint64), ("at_flags", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("request", ctypes.c_uint32),
                ("Nth", ctypes.c_uint32), ("Mth", ctypes.c_uint32)]


class FsinfoMountChild(ctypes.Structure):
    _fields_ = [("mnt_unique_id", ctypes.c_uint64), ("mnt_id", ctypes.c_uint32),
                ("parent_id", ctypes.c_uint32), ("mnt_notify_sum", ctypes.c_uint64)]


FSINFO_ATTR_MOUNT_ALL = 0x206


def kernel_sums():
    """
    fsinfo(2) FSINFO_ATTR_MOUNT_ALL of "/": {unique ID: (mount ID, parent
    mount ID, mnt_notify_sum)} for every mount of the namespace.
    """
    params = FsinfoParams(request=FSINFO_ATTR_MOUNT_ALL)  # flags 0: query by path
    size, buf = 0, None  # a NULL buffer of size 0 asks for the size only
    while True:
        r = libc.syscall(ctypes.c_long(SYS_FSINFO), ctypes.c_int(-100), ctypes.c_char_p(b"/"),
                         ctypes.byref(params), ctypes.c_size_t(ctypes.sizeof(params)), buf,
                         ctypes.c_size_t(size))
        if r < 0:
            raise OSError(ctypes.get_errno(), "fsinfo(/, FSINFO_ATTR_MOUNT_ALL)")
        if buf is not None and r <= size:
            break
        size = r + 16 * ctypes.sizeof(FsinfoMountChild)  # room for mounts added meanwhile
        buf = ctypes.create_string_buffer(size)
    recs = (FsinfoMountChild * (r // ctypes.sizeof(FsinfoMountChild))).from_buffer_copy(buf.raw[:r])
    return {c.mnt_unique_id: (c.mnt_id, c.parent_id, c.mnt_notify_sum) for c in recs}


FSINFO_ATTR_MOUNT_INFO = 0x200
FSINFO_FLAGS_QUERY_MOUNT = 0x0002


class FsinfoMountInfo(ctypes.Structure):
    _fields_ = [("sb_unique_id", ctypes.c_uint64), ("mnt_unique_id", ctypes.c_uint64),
                ("mnt_id", ctypes.c_uint32), ("attr", ctypes.c_uint32),
                ("mnt_attr_changes", ctypes.c_uint64), ("mnt_topology_changes", ctypes.c_uint64),
                ("mnt_subtree_notifications", ctypes.c_uint64)]


def kernel_superblock_id(unique_id):
    """fsinfo(2) FSINFO_ATTR_MOUNT_INFO of a mount by its unique ID: its superblock's unique ID."""
    params = FsinfoParams(request=FSINFO_ATTR_MOUNT_INFO, flags=FSINFO_FLAGS_QUERY_MOUNT)
    info = FsinfoMountInfo()
    r = libc.syscall(ctypes.c_long(SYS_FSINFO), ctypes.c_int(-100), ctypes.c_char_p(b"%d" % unique_id),
                     ctypes.byref(params), ctypes.c_size_t(ctypes.sizeof(params)), ctypes.byref(info),
                     ctypes.c_size_t(ctypes.sizeof(info)))
    if r < 0:
        raise OSError(ctypes.get_errno(), "fsinfo(%d, FSINFO_ATTR_MOUNT_INFO)" % unique_id)
    return info.sb_unique_id


def compare_counts():
    """
    Mounts whose ChangeCount (the sum the daemon mirrors from the events)
    differs from the kernel's mnt_notify_sum, as text lines, and how many
    mounts were compared. The kernel's sums are read after the daemon's, so
    that a change in between shows up as a difference, not as a match.
    """
    have = daemon_mounts()
    if have is None:
        return ["GetManagedObjects failed"], 0
    want = kernel_sums()
    points = {v["UniqueId"]: v["MountPoint"] for v in have.values()}
    diffs = []
    for v in sorted(have.values(), key=lambda v: v["MountPoint"]):
        k = want.get(v["UniqueId"])
        if k is None:
            diffs.append("%s (%d): in the daemon, not in MOUNT_ALL" % (v["MountPoint"], v["UniqueId"]))
        elif v["ChangeCount"] != k[2]:
            diffs.append("%s (%d): ChangeCount %d, kernel %d (%+d)" % (v["MountPoint"], v["UniqueId"],
                                                                       v["ChangeCount"], k[2], v["ChangeCount"] - k[2]))
    for uid in sorted(set(want) - set(points)):
        diffs.append("mount %d (ID %d): in MOUNT_ALL, not in the daemon" % (uid, want[uid][0]))
    return diffs, len(have)


def restart_with(conf_text):
    """Writes the configuration file and restarts the daemon; whether it is active."""
    with open(CONF, "w") as f:
        f.write(conf_text)
    run("systemctl", "restart", "mountwatchd", timeout=600)
    return run("systemctl", "is-active", "mountwatchd").stdout.strip() == "active"


def settle(timeout=30):
    """Waits until the daemon's generation stops moving and the counts agree (timeout times SLOW)."""
    end = time.time() + timeout * SLOW
    last = None
    while time.time() < end:
        g = prop("Generation")
        c = prop("MountCount")
        if g is not None and g == last and c == len(mountinfo()):
            return True
        last = g
        time.sleep(0.5)
    return False


# Mounts made by the tests, below TOP (a private tmpfs).

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = 1, 32, 4096, 8192, 16384
MS_UNBINDABLE, MS_PRIVATE, MS_SLAVE, MS_SHARED = 1 << 17, 1 << 18, 1 << 19, 1 << 20
MNT_DETACH = 2
TOP = "/srv/mw-storm"


def mount(src, tgt, fstype, flags, data=None):
    r = libc.mount(src.encode() if src else None, tgt.encode(), fstype.encode() if fstype else None,
                   ctypes.c_ulong(flags), data.encode() if data else None)
    return r == 0


def umount(tgt, flags=0):
    return libc.umount2(tgt.encode(), flags) == 0


def setup_top():
    os.makedirs(TOP, exist_ok=True)
    teardown_top()
    mount("mw-storm", TOP, "tmpfs", 0, "size=16m")
    mount(None, TOP, None, MS_PRIVATE)


def teardown_top():
    while umount(TOP, MNT_DETACH):
        pass
