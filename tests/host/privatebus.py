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
import time


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


class PrivateBus:
    """A dbus-daemon of type system on a socket in a new directory; sets DBUS_SYSTEM_BUS_ADDRESS."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mwbus.")
        conf = os.path.join(self.dir, "bus.conf")
        with open(conf, "w") as f:
            f.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=%s/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/>
<allow receive_sender="*"/></policy></busconfig>
""" % self.dir)
        self.process = subprocess.Popen(["dbus-daemon", "--config-file=" + conf, "--nofork", "--nopidfile"])
        self.address = "unix:path=%s/bus" % self.dir
        for _ in range(100):
            if os.path.exists(self.dir + "/bus"):
                break
            time.sleep(0.05)
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.address

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait()
