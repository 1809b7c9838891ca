#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The runner's safety net after a daemon row (bench/cuda/colocate.sh):
# a CUDA process lock outlives the process that took it (measured on the
# H200, driver 580.159.04: a locker killed or exiting without unlocking
# left its target LOCKED), so once the daemon has stopped, the runner
# asks the driver whether the trainer is still locked and, if so, says
# so and unlocks it before stopping it.
#   cudalock.py state PID     prints running|locked|checkpointed|failed
#   cudalock.py unlock PID    unlocks; prints "unlocked"
# CUDA driver API, "CUDA Checkpointing" group (public NVIDIA docs):
# cuCheckpointProcessGetState(int pid, CUprocessState *) and
# cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs * = NULL),
# from libcuda.so.1 at run time, no cuInit needed (measured there).
# Exit 0; 1 the call failed (CUresult printed); 2 bad usage; 3 no libcuda.
import ctypes
import sys

STATES = {0: "running", 1: "locked", 2: "checkpointed", 3: "failed"}


def main(argv):
    if len(argv) != 2 or argv[0] not in ("state", "unlock") or \
            not argv[1].isdigit():
        print("usage: cudalock.py state|unlock PID", file=sys.stderr)
        return 2
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        print("cudalock.py: no libcuda.so.1: %s" % e, file=sys.stderr)
        return 3
    pid = ctypes.c_int(int(argv[1]))
    if argv[0] == "state":
        st = ctypes.c_int(-1)
        r = cu.cuCheckpointProcessGetState(pid, ctypes.byref(st))
        if r:
            print("cudalock.py: GetState(%s): CUresult %d" % (argv[1], r),
                  file=sys.stderr)
            return 1
        print(STATES.get(st.value, "state-%d" % st.value))
        return 0
    r = cu.cuCheckpointProcessUnlock(pid, None)
    if r:
        print("cudalock.py: Unlock(%s): CUresult %d" % (argv[1], r),
              file=sys.stderr)
        return 1
    print("unlocked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
