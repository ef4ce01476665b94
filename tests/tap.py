"""
TAP output for the Python tests, host and guest alike: ok() and skip() print
one numbered case each, finish() the plan and the exit status. Installed
into the guest beside the guest tests (tests/guest/mwtest.py re-exports it).
wait_until() polls a condition, for tests that wait on another process.
"""
import time

n = 0  # cases so far
failed = 0  # of which failed


def ok(cond, desc, diag=None):
    """One TAP case; on failure up to 40 lines of diag as comments before it."""
    global n, failed
    n += 1
    if not cond:
        failed += 1
        for line in str(diag or "").splitlines()[:40]:
            print("# " + line)
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc), flush=True)
    return cond


def skip(desc, reason):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, desc, reason), flush=True)


def finish():
    """Prints the plan; the exit status for sys.exit."""
    print("1..%d" % n)
    return 1 if failed else 0


def wait_until(cond, patience, step=0.05, pump=None):
    """Calls pump() (if given: say, a main loop's pending events) and cond()
    every step seconds until cond() is true or patience seconds have passed;
    returns cond()'s last value. Against hanging, not a measurement."""
    deadline = time.monotonic() + patience
    while True:
        if pump:
            pump()
        if cond() or time.monotonic() > deadline:
            return cond()
        time.sleep(step)
