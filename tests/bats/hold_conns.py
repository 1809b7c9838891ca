#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# hold_conns.py SOCK N OUT: open N connections to the daemon's socket one
# by one, each sending "status" and reading its reply; writes one line per
# connection to OUT ("ok" or the daemon's "err ..." line), then "done",
# and keeps the accepted ones open until killed. A stand-in for a tenant
# that holds many connections (tests/bats/tenancy.bats).
import socket
import sys
import time

path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
keep = []
with open(out, "w") as f:
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        # A refused connection gets its "err" line and is closed at
        # accept, possibly before this send: the send then fails with
        # EPIPE, but the err line is already queued for recv.
        try:
            s.sendall(b"status\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        buf = b""
        while not buf.endswith(b"ok\n") and b"err " not in buf:
            try:
                got = s.recv(4096)
            except ConnectionResetError:
                got = b""
            if not got:
                break
            buf += got
        last = buf.decode(errors="replace").strip().splitlines()
        f.write((last[-1] if last else "closed") + "\n")
        f.flush()
        keep.append(s)
    f.write("done\n")
while True:
    time.sleep(60)
