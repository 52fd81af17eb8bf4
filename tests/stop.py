#!/usr/bin/env python3
"""Start a program, wait until it is busy, send it a signal and report how it
ended. Used by tests/host_spec.lua, tests/multi_spec.lua and
tests/hostile/others_spec.lua.

    python3 tests/stop.py SIGNAL WAIT [NAME=VALUE ...] -- command [args...]

The program starts with SIGINT, SIGTERM, SIGHUP and SIGPIPE at their default
actions and no signal blocked, whatever this driver inherited (a shell's
background job ignores SIGINT, nohup ignores SIGHUP), in a session of its own,
with standard input from /dev/null.

WAIT is "line" (the program's first line on stdout, then 0.3 s),
"files:DIR:N" (N files in DIR, then 0.2 s) or "children:N" (N processes of
the program's session besides itself, then 0.2 s); each waits at most 30 s.
NAME=VALUE pairs are added to the environment.

Prints, one per line: the exit status (negative: killed by that signal), the
seconds from the signal to the end, how many processes of the program's
session were still running once it had ended (its workers, anything they
started), then the program's stderr.

Nothing here waits without a bound: a program still running 30 s after the
signal is killed with its whole session; the pipes are read for at most 5 s
after it ended; what is left of the session then is killed, so nothing
outlives the test.
"""
import ctypes
import os
import selectors
import signal
import subprocess
import sys
import time

TESTED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)

sig = getattr(signal, sys.argv[1])
wait = sys.argv[2]
sep = sys.argv.index("--")
env = dict(os.environ)
for pair in sys.argv[3:sep]:
    name, value = pair.split("=", 1)
    env[name] = value


def in_child():
    # Runs in the child before exec: the signals under test at their
    # defaults, none blocked; killed when this driver dies (a test run
    # interrupted from outside), so an endless test never outlives its test.
    for s in TESTED:
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def session(sid):
    """The processes of session sid that still run (zombies have ended)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(name))
    return pids


def kill_session(sid):
    for pid in session(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


p = subprocess.Popen(sys.argv[sep + 1:], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, preexec_fn=in_child, start_new_session=True)
sel = selectors.DefaultSelector()
out, err = bytearray(), bytearray()
sel.register(p.stdout, selectors.EVENT_READ, out)
sel.register(p.stderr, selectors.EVENT_READ, err)


def read(deadline, until=None):
    """Read both pipes until both are at their end, until(out) holds, or the
    deadline passes."""
    while time.time() < deadline and not (until and until(out)):
        if not sel.get_map():
            time.sleep(max(0.0, min(0.05, deadline - time.time())))
            return
        for key, _ in sel.select(max(0.0, min(0.1, deadline - time.time()))):
            data = os.read(key.fileobj.fileno(), 65536)
            if data:
                key.data.extend(data)
            else:
                sel.unregister(key.fileobj)


start = time.time()
if wait == "line":
    read(start + 30, lambda b: b"\n" in b)
    time.sleep(0.3)
elif wait.startswith("children:"):
    count = int(wait.split(":")[1])
    while len(session(p.pid)) < count + 1 and time.time() - start < 30:
        read(time.time() + 0.05)
    time.sleep(0.2)
else:
    _, folder, count = wait.split(":")
    while len(os.listdir(folder)) < int(count) and time.time() - start < 30:
        read(time.time() + 0.05)
    time.sleep(0.2)
t = time.time()
p.send_signal(sig)
while p.poll() is None and time.time() - t < 30:
    read(time.time() + 0.05)
if p.poll() is None:
    kill_session(p.pid)
    p.wait()
took = time.time() - t
read(time.time() + 5)
left = session(p.pid)
kill_session(p.pid)
sys.stdout.write("%d\n%.2f\n%d\n%s" % (p.returncode, took, len(left), err.decode(errors="replace")))
