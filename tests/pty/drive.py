#!/usr/bin/env python3
"""Drive a program through a pseudo-terminal as a person would: type, press
keys, wait for text to appear on the screen. Used by tests/repl_spec.lua.

    python3 tests/pty/drive.py STEPS.json -- command [args...]

STEPS.json is a list of steps:
    ["send", "text"]          write bytes to the terminal ("\t" is Tab,
                              "\u0003" Ctrl-C, "\u0004" Ctrl-D, "\r" Enter)
    ["expect", "text"]        wait until text appears in the output after
                              the previous match (escape sequences removed)
    ["expect_line", "text"]   wait until the cursor's screen line, as drawn,
                              ends with text (trailing blanks ignored)
    ["sleep", seconds]
    ["wait"]                  wait for the program to exit
Prints one JSON object: {"ok", "error", "transcript", "screen", "status"}.
"screen" is the terminal as rendered by a small emulator (enough of VT100
for readline: cursor moves, erase, insert/delete characters), one string
per line; "status" is the exit status (null when still running at the end,
then the program is killed).

Only the Python standard library is used (pty, os, select, json).
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

COLS, ROWS = 100, 40
CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


class Screen:
    """Unbounded rows, fixed width: enough to read what readline drew."""

    def __init__(self, cols):
        self.cols = cols
        self.rows = [[]]
        self.r = 0
        self.c = 0
        self.pending = b""

    def _line(self):
        while len(self.rows) <= self.r:
            self.rows.append([])
        return self.rows[self.r]

    def _put(self, ch):
        if self.c >= self.cols:
            self.r += 1
            self.c = 0
        line = self._line()
        while len(line) < self.c:
            line.append(" ")
        if self.c < len(line):
            line[self.c] = ch
        else:
            line.append(ch)
        self.c += 1

    def _csi(self, params, final):
        nums = [int(p) if p.isdigit() else 0 for p in params.lstrip("?").split(";")] if params else []
        n = nums[0] if nums and nums[0] > 0 else 1
        line = self._line()
        if final == "K":
            mode = nums[0] if nums else 0
            if mode == 0:
                del line[self.c:]
            elif mode == 1:
                for i in range(min(self.c + 1, len(line))):
                    line[i] = " "
            else:
                line.clear()
        elif final == "C":
            self.c = min(self.c + n, self.cols - 1)
        elif final == "D":
            self.c = max(self.c - n, 0)
        elif final == "A":
            self.r = max(self.r - n, 0)
        elif final == "B":
            self.r += n
        elif final == "G":
            self.c = n - 1
        elif final == "P":
            del line[self.c:self.c + n]
        elif final == "@":
            for _ in range(n):
                line.insert(self.c, " ")
        elif final == "J":
            del line[self.c:]
            del self.rows[self.r + 1:]
        # m (colours), h/l (modes) and the rest do not change the text.

    def feed(self, data):
        data = self.pending + data
        self.pending = b""
        text = data.decode("utf-8", "replace")
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                m = re.match(r"\x1b\[([0-?]*)[ -/]*([@-~])", text[i:])
                if m:
                    self._csi(m.group(1), m.group(2))
                    i += m.end()
                    continue
                m = re.match(r"\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]", text[i:])
                if m:
                    i += m.end()
                    continue
                if len(text) - i < 8:  # an incomplete sequence: wait for the rest
                    self.pending = text[i:].encode()
                    return
                i += 1
                continue
            if ch == "\r":
                self.c = 0
            elif ch == "\n":
                self.r += 1
                self._line()
            elif ch == "\b":
                self.c = max(self.c - 1, 0)
            elif ch == "\t":
                self.c = min((self.c // 8 + 1) * 8, self.cols - 1)
            elif ch == "\x07":
                pass
            elif ch >= " ":
                self._put(ch)
            i += 1

    def lines(self):
        return ["".join(l).rstrip() for l in self.rows]

    def cursor_line(self):
        self._line()
        return "".join(self.rows[self.r]).rstrip()


def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print("usage: drive.py STEPS.json -- command [args...]", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        steps = json.load(f)
    cmd = argv[2:]
    timeout = float(os.environ.get("PTY_TIMEOUT", "15"))

    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ["INPUTRC"] = "/dev/null"
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))

    raw = bytearray()
    screen = Screen(COLS)
    mark = 0
    status = None
    result = {"ok": True, "error": None}

    def pump(wait):
        nonlocal status
        r, _, _ = select.select([fd], [], [], wait)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if data:
                raw.extend(data)
                screen.feed(data)
                return True
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(st)
        return False

    def stripped():
        return CSI.sub(b"", bytes(raw)).replace(b"\r", b"").decode("utf-8", "replace")

    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "send":
            pump(0)
            os.write(fd, step[1].encode())
        elif kind == "sleep":
            end = time.monotonic() + float(step[1])
            while time.monotonic() < end:
                pump(max(0.0, end - time.monotonic()))
        elif kind in ("expect", "expect_line"):
            def check():
                nonlocal mark
                if kind == "expect_line":
                    return screen.cursor_line().endswith(step[1])
                pos = stripped().find(step[1], mark)
                if pos >= 0:
                    mark = pos + len(step[1])
                return pos >= 0

            end = time.monotonic() + timeout
            found = False
            while True:
                found = check()
                if found or time.monotonic() > end:
                    break
                if not pump(0.05) and status is not None:
                    while pump(0):  # the program ended: read what is left, look once more
                        pass
                    found = check()
                    break
            if not found:
                result = {"ok": False, "error": "step %d: %s %r: not seen (cursor line %r)"
                          % (i + 1, kind, step[1], screen.cursor_line())}
                break
        elif kind == "wait":
            end = time.monotonic() + timeout
            while status is None and time.monotonic() < end:
                pump(0.05)
            while pump(0):
                pass
            if status is None:
                result = {"ok": False, "error": "step %d: the program did not exit" % (i + 1)}
                break
        else:
            result = {"ok": False, "error": "step %d: unknown step %r" % (i + 1, kind)}
            break

    while pump(0.05):
        pass
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    result["transcript"] = stripped()
    result["screen"] = screen.lines()
    result["status"] = status
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
