# SPDX-License-Identifier: GPL-2.0
# The CUDA process lock's facts the CUDA backend relies on, measured on a
# real NVIDIA GPU (run on the GPU machine, never in CI; raw output kept in
# bench/results/<date>/cuda-lock-facts.txt):
#   python3 bench/cuda/lock-facts.py > cuda-lock-facts.txt
# It starts PyTorch targets and, from this process (ctypes, no cuInit),
# locks, unlocks and reads their state: return codes of every edge case,
# whether a lock outlives the process that took it (a holder SIGKILLed, a
# holder that exits without unlocking), and a lock behind a long kernel.
# cuCheckpointProcess{Lock,Unlock,GetState}: CUDA driver API, "CUDA
# Checkpointing" group (NVIDIA's public documentation).
import ctypes, ctypes.util, os, signal, subprocess, sys, time, json
def lib():
    l = ctypes.CDLL("libcuda.so.1")
    return l
class LockArgs(ctypes.Structure):
    _fields_ = [("timeoutMs", ctypes.c_uint), ("reserved0", ctypes.c_uint), ("reserved1", ctypes.c_uint64 * 7)]
def state(l, pid):
    s = ctypes.c_int(-1); r = l.cuCheckpointProcessGetState(pid, ctypes.byref(s)); return r, s.value
def lock(l, pid, tmo):
    a = LockArgs(); a.timeoutMs = tmo
    t = time.perf_counter(); r = l.cuCheckpointProcessLock(pid, ctypes.byref(a)); return r, (time.perf_counter() - t) * 1e3
def unlock(l, pid):
    t = time.perf_counter(); r = l.cuCheckpointProcessUnlock(pid, None); return r, (time.perf_counter() - t) * 1e3
TRAINER = r'''
import torch, time, sys
torch.cuda.init(); a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
print("ready", flush=True); n = 0
while True:
    b = a @ a; torch.cuda.synchronize(); n += 1
    if n % 50 == 0: print("step", n, time.monotonic(), flush=True)
'''
SLEEPER = r'''
import torch, time, sys
torch.cuda.init(); torch.cuda._sleep(1000); torch.cuda.synchronize()
print("ready", flush=True)
for line in sys.stdin:
    cyc = int(line)
    t = time.monotonic(); torch.cuda._sleep(cyc); torch.cuda.synchronize()
    print("slept", time.monotonic() - t, flush=True)
'''
HOLDER = r'''
import ctypes, sys, time
class A(ctypes.Structure):
    _fields_ = [("timeoutMs", ctypes.c_uint), ("reserved0", ctypes.c_uint), ("reserved1", ctypes.c_uint64 * 7)]
l = ctypes.CDLL("libcuda.so.1"); a = A(); a.timeoutMs = 5000
r = l.cuCheckpointProcessLock(int(sys.argv[1]), ctypes.byref(a)); print("locked", r, flush=True); time.sleep(100)
'''
def main():
    l = lib(); out = {}
    p = subprocess.Popen([sys.executable, "-c", TRAINER], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().startswith("ready")
    time.sleep(1)
    out["state_running"] = state(l, p.pid)
    out["unlock_not_locked"] = unlock(l, p.pid)
    out["lock1"] = lock(l, p.pid, 5000)
    out["state_locked"] = state(l, p.pid)
    out["lock_again"] = lock(l, p.pid, 5000)
    out["unlock1"] = unlock(l, p.pid)
    out["state_after"] = state(l, p.pid)
    # holder SIGKILLed while holding
    h = subprocess.Popen([sys.executable, "-c", HOLDER, str(p.pid)], stdout=subprocess.PIPE, text=True)
    out["holder_said"] = h.stdout.readline().strip()
    out["state_holder_alive"] = state(l, p.pid)
    h.kill(); h.wait()
    seq = []
    for i in range(6):
        seq.append((round(i * 0.5, 1), state(l, p.pid))); time.sleep(0.5)
    out["state_after_holder_sigkill"] = seq
    # does the trainer progress?  read lines with timeout
    os.set_blocking(p.stdout.fileno(), False)
    time.sleep(1.0)
    got = p.stdout.read() or ""
    out["trainer_lines_after_kill_1s"] = len(got.splitlines())
    if state(l, p.pid)[1] == 1:
        out["unlock_by_other"] = unlock(l, p.pid)
        time.sleep(1.0); got = p.stdout.read() or ""
        out["trainer_lines_after_unlock_1s"] = len(got.splitlines())
    # holder exits normally (no unlock)
    H2 = HOLDER.replace("time.sleep(100)", "")
    h = subprocess.run([sys.executable, "-c", H2, str(p.pid)], capture_output=True, text=True)
    out["holder_exit_said"] = h.stdout.strip()
    out["state_after_holder_exit"] = state(l, p.pid)
    if out["state_after_holder_exit"][1] == 1: out["unlock2"] = unlock(l, p.pid)
    p.kill(); p.wait()
    out["lock_dead_pid"] = lock(l, p.pid, 1000)
    out["state_dead_pid"] = state(l, p.pid)
    out["lock_non_cuda"] = lock(l, os.getppid(), 1000)
    out["state_non_cuda"] = state(l, os.getppid())
    # long kernel
    s = subprocess.Popen([sys.executable, "-c", SLEEPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert s.stdout.readline().startswith("ready")
    for cyc in (2000000000,):
        s.stdin.write(f"{cyc}\n"); s.stdin.flush(); time.sleep(0.2)
        out["long_lock_tmo100"] = lock(l, s.pid, 100)
        out["long_state_after_tmo"] = state(l, s.pid)
        out["long_lock_tmo10000"] = lock(l, s.pid, 10000)
        out["long_state2"] = state(l, s.pid)
        out["long_unlock"] = unlock(l, s.pid)
        out["long_slept"] = s.stdout.readline().strip()
    s.kill()
    print(json.dumps(out, indent=1))
main()
