#!/usr/bin/env python3
"""Start a program with the default signal dispositions (a shell's background
job would have SIGINT ignored), wait until it is busy, send it a signal and
report how it ended. Used by tests/host_spec.lua and tests/multi_spec.lua.

    python3 tests/stop.py SIGNAL WAIT [NAME=VALUE ...] -- command [args...]

WAIT is "line" (the program's first line on stdout, then 0.3 s) or
"files:DIR:N" (N files in DIR, then 0.2 s). NAME=VALUE pairs are added to the
environment. Prints the exit status (negative: killed by that signal), the
seconds from the signal to the end, then the program's stderr, one per line.
A program still running 30 s after the signal is killed.
"""
import os
import signal
import subprocess
import sys
import time

sig = getattr(signal, sys.argv[1])
wait = sys.argv[2]
sep = sys.argv.index("--")
env = dict(os.environ)
for pair in sys.argv[3:sep]:
    name, value = pair.split("=", 1)
    env[name] = value
p = subprocess.Popen(sys.argv[sep + 1:], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if wait == "line":
    p.stdout.readline()
    time.sleep(0.3)
else:
    _, folder, count = wait.split(":")
    start = time.time()
    while len(os.listdir(folder)) < int(count) and time.time() - start < 30:
        time.sleep(0.05)
    time.sleep(0.2)
t = time.time()
p.send_signal(sig)
try:
    out, err = p.communicate(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
sys.stdout.write("%d\n%.2f\n%s" % (p.returncode, time.time() - t, err.decode()))
