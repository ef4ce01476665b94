"""
What the host tests of mountwatchd share: they run as root inside a private
mount namespace (never touching the host's mount table) with a tmpfs on
/tmp, against a private dbus-daemon of type "system" (never the host's
system bus). A missing prerequisite is a TAP SKIP.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def skip_all(why):
    print("1..0 # SKIP " + why, flush=True)
    sys.exit(0)


def enter_namespace():
    """Re-runs this script in a private mount namespace (propagation private), once."""
    if os.geteuid() != 0:
        skip_all("not root")
    if not shutil.which("dbus-daemon"):
        skip_all("no dbus-daemon")
    if "MWD_IN_NS" in os.environ:
        return
    env = dict(os.environ, MWD_IN_NS="1")
    if subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                      stderr=subprocess.DEVNULL).returncode:
        skip_all("unshare --mount is not permitted here")
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable] + sys.argv,
                       env=env)
    sys.exit(r.returncode)


def private_tmp():
    """Mounts a tmpfs on /tmp (in the private namespace). If this tree or the
    build directory (the current one) lies under /tmp, as a clone in /tmp
    does, the top directory holding it is bound back from the /tmp below, so
    that the tests still find their programs and files."""
    top = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    names = sorted({p.split("/")[2] for p in (top, os.path.realpath(os.getcwd())) if p.startswith("/tmp/")})
    # Opened first: a path through /tmp would lead into the tmpfs once mounted
    below = {name: os.open("/tmp/" + name, os.O_PATH | os.O_DIRECTORY) for name in names}
    try:
        subprocess.run(["mount", "-t", "tmpfs", "mwtmp", "/tmp"], check=True)
        for name, fd in below.items():
            os.mkdir("/tmp/" + name)
            subprocess.run(["mount", "--no-canonicalize", "--bind", "/proc/self/fd/%d" % fd, "/tmp/" + name],
                           check=True, pass_fds=(fd,))
    finally:
        for fd in below.values():
            os.close(fd)


# Read now: the tests then mount a tmpfs over /tmp, which may hide this tree.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "private-bus.conf")) as f:
    BUS_CONF = f.read()


class PrivateBus:
    """A dbus-daemon of type system (tests/host/private-bus.conf); sets DBUS_SYSTEM_BUS_ADDRESS."""

    def __init__(self):
        fd, conf = tempfile.mkstemp(prefix="mwbus.", suffix=".conf")
        with os.fdopen(fd, "w") as f:
            f.write(BUS_CONF)
        self.process = subprocess.Popen(["dbus-daemon", "--config-file=" + conf, "--nofork",
                                         "--nopidfile", "--print-address"],
                                        stdout=subprocess.PIPE, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon printed no address (exit %s)" % self.process.poll())
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.address

    def connect(self):
        """A new connection of our own to this bus, with GLib's GDBus (python3-gi)."""
        from gi.repository import Gio
        return Gio.DBusConnection.new_for_address_sync(
            self.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait()


def call(conn, method, sig=None, args=None, iface="org.mountwatch.MountWatch1.Manager",
         path="/org/mountwatch/MountWatch1", timeout=5000):
    """Calls mountwatchd over conn (no auto-start): (None, reply) or (the D-Bus error's name, None)."""
    from gi.repository import Gio, GLib
    try:
        v = conn.call_sync("org.mountwatch.MountWatch1", path, iface, method,
                           GLib.Variant(sig, args) if sig else None, None,
                           Gio.DBusCallFlags.NO_AUTO_START, timeout, None)
        return None, v.unpack()
    except GLib.Error as e:
        return Gio.DBusError.get_remote_error(e) or e.message, None
