#!/usr/bin/python3
# The unprivileged attacker of daemon-abuse.test: run as another user (uid
# 65534, by setpriv) against the private bus at ADDRESS, it prints one line
# of JSON with what it got and, for "pin", waits for a line on stdin before
# it lets go of what it holds.
#
#   abuse-client.py pin ADDRESS CONNECTIONS CALLS
#       CALLS ListMountsByFileDescriptor over each of CONNECTIONS new
#       connections, keeping every fd: {"answered", "refused", "errors",
#       "table_size"} (bytes of one table).
#   abuse-client.py loop ADDRESS SECONDS
#       GetManagedObjects and ListMounts, alternately, LOOP_IN_FLIGHT calls
#       at a time over LOOP_CONNECTIONS connections (more than one caller's
#       budget), for SECONDS: {"answered", "refused", "errors"}.
import json
import os
import sys
import time

LOOP_CONNECTIONS = 4
LOOP_IN_FLIGHT = 8


def connect(address):
    from gi.repository import Gio
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def tally(out, err):
    if err is None:
        out["answered"] += 1
    elif err.endswith(".LimitsExceeded"):
        out["refused"] += 1
    else:
        out["errors"].append(err)


def pin(address, connections, calls):
    from gi.repository import Gio
    out = {"answered": 0, "refused": 0, "errors": [], "table_size": 0}
    held, conns = [], []
    for _ in range(connections):
        conn = connect(address)
        conns.append(conn)
        for _ in range(calls):
            try:
                v, fds = conn.call_with_unix_fd_list_sync(
                    "org.mountwatch.MountWatch1", "/org/mountwatch/MountWatch1",
                    "org.mountwatch.MountWatch1.Manager", "ListMountsByFileDescriptor", None, None,
                    Gio.DBusCallFlags.NO_AUTO_START, 10000, None, None)
                fd = fds.get(v.unpack()[1])
                held.append(fd)
                out["table_size"] = os.fstat(fd).st_size
                tally(out, None)
            except Exception as e:  # GLib.Error
                tally(out, Gio.DBusError.get_remote_error(e) or str(e))
    print(json.dumps(out), flush=True)
    sys.stdin.readline()
    for fd in held:
        os.close(fd)


def loop(address, seconds):
    from gi.repository import Gio, GLib
    out = {"answered": 0, "refused": 0, "errors": []}
    deadline = time.monotonic() + seconds
    conns = [connect(address) for _ in range(LOOP_CONNECTIONS)]
    in_flight = [0]

    def done(conn, res):
        in_flight[0] -= 1
        try:
            conn.call_finish(res)  # not unpacked: the client's own cost stays small
            tally(out, None)
        except GLib.Error as e:
            tally(out, Gio.DBusError.get_remote_error(e) or e.message)

    ctx = GLib.MainContext.default()
    i = 0
    while time.monotonic() < deadline or in_flight[0]:
        while time.monotonic() < deadline and in_flight[0] < LOOP_IN_FLIGHT:
            conn = conns[i % len(conns)]
            if i % 2:
                conn.call("org.mountwatch.MountWatch1", "/org/mountwatch/MountWatch1",
                          "org.mountwatch.MountWatch1.Manager", "ListMounts", None, None,
                          Gio.DBusCallFlags.NO_AUTO_START, 30000, None, done)
            else:
                conn.call("org.mountwatch.MountWatch1", "/org/mountwatch/MountWatch1",
                          "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", None, None,
                          Gio.DBusCallFlags.NO_AUTO_START, 30000, None, done)
            in_flight[0] += 1
            i += 1
        ctx.iteration(True)
    out["errors"] = sorted(set(out["errors"]))
    print(json.dumps(out), flush=True)


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "pin":
        pin(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "loop":
        loop(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit("usage: abuse-client.py pin ADDRESS CONNECTIONS CALLS | loop ADDRESS SECONDS")


main()
