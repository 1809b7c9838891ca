#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# gpnotify: the arbiter's busy/idle client in Python, for the CUDA
# co-location benchmark's online server (bench/cuda/online_server.py).
# Standard library only (no torch), so CI imports and tests it
# (tests/bats/cudabench.bats) against a stand-in server.
#
# The wire (docs/arbiter.md "Signal", user/notify/gp_notify.c): one
# persistent AF_UNIX stream connection; the client writes "busy\n" or
# "idle\n"; the daemon answers with zero or more INFO lines, then one
# final line, "ok" or "err EXIT ERRNO MESSAGE". A busy ends when its
# connection closes, so a crashed server never keeps training frozen.
# The daemon answers "ok" to busy once the offline processes are
# suspended, so the busy round trip is the server's wait for the GPU.
# Socket: the path given, else $GPREEMPT_SOCKET, else
# /run/gpreempt/ctl.sock (gp_notify.h). Like gp_notify.c it refuses a
# server that is not root (SO_PEERCRED) unless told otherwise, and it
# reconnects once when the daemon has closed a quiet connection (the
# daemon's idle timeout) before sending anything on it.
#
#   python3 gpnotify.py [--socket PATH] [--no-root-check] busy|idle ...
# sends each word in turn on one connection and prints
#   {"word":"busy","rtt_us":N}  per word; exit 0, or 1 on "err"/failure.
import json
import os
import select
import socket
import struct
import sys
import time

DEFAULT_SOCKET = "/run/gpreempt/ctl.sock"
SOCKET_ENV = "GPREEMPT_SOCKET"


class NotifyError(RuntimeError):
    pass


class Notifier:
    def __init__(self, path=None, require_root=True, timeout=5.0):
        self.path = path or os.environ.get(SOCKET_ENV) or DEFAULT_SOCKET
        self.require_root = require_root
        self.timeout = timeout
        self.reconnects = 0
        self._connect()

    def _connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
            if self.require_root:
                cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                    struct.calcsize("3i"))
                _, uid, _ = struct.unpack("3i", cred)
                if uid != 0:
                    raise NotifyError("%s: the server is uid %d, not root "
                                      "(not the daemon?)" % (self.path, uid))
        except BaseException:
            s.close()
            raise
        self.sock = s
        self.buf = b""

    def _hung_up(self):
        if self.sock.fileno() < 0:      # closed after a lost reply
            return True
        p = select.poll()
        p.register(self.sock, select.POLLIN | getattr(select, "POLLRDHUP",
                                                      0x2000))
        for _, ev in p.poll(0):
            if ev & (getattr(select, "POLLRDHUP", 0x2000) | select.POLLHUP):
                return True
            if ev & select.POLLIN and not self.buf:
                # data with nothing asked: an EOF or a stray line
                try:
                    d = self.sock.recv(4096, socket.MSG_PEEK)
                except OSError:
                    return True
                return d == b""
        return False

    def send(self, word):
        """Sends one line, waits for its final reply. Returns the round
        trip in ns; raises NotifyError on "err ..." or a lost daemon."""
        if self._hung_up():
            self.sock.close()
            self._connect()
            self.reconnects += 1
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        try:
            self.sock.sendall((word + "\n").encode())
            while True:
                nl = self.buf.find(b"\n")
                if nl >= 0:
                    line = self.buf[:nl].decode(errors="replace").strip()
                    self.buf = self.buf[nl + 1:]
                    if line == "ok":
                        return time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t0
                    if line.startswith("err"):
                        raise NotifyError("%s: %s" % (word, line))
                    continue        # an INFO line
                if len(self.buf) > 65536:
                    raise NotifyError("%s: reply too long" % word)
                d = self.sock.recv(4096)
                if not d:
                    raise NotifyError("%s: the daemon closed the "
                                      "connection" % word)
                self.buf += d
        except socket.timeout:
            # a late reply would answer the next request: end the session
            self.close()
            raise NotifyError("%s: no reply in %.1f s" % (word, self.timeout))
        except OSError as e:
            raise NotifyError("%s: %s" % (word, e))

    def busy(self):
        return self.send("busy")

    def idle(self):
        return self.send("idle")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def main(argv):
    path, root, words = None, True, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--socket" and i + 1 < len(argv):
            path = argv[i + 1]
            i += 2
            continue
        if a == "--no-root-check":
            root = False
        elif a in ("busy", "idle"):
            words.append(a)
        else:
            print("usage: gpnotify.py [--socket PATH] [--no-root-check] "
                  "busy|idle ...", file=sys.stderr)
            return 2
        i += 1
    if not words:
        print("gpnotify.py: no word to send (busy, idle)", file=sys.stderr)
        return 2
    try:
        n = Notifier(path, require_root=root)
        for w in words:
            rtt = n.send(w)
            print(json.dumps({"word": w, "rtt_us": round(rtt / 1e3, 1)}),
                  flush=True)
    except (NotifyError, OSError) as e:
        print("gpnotify.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
