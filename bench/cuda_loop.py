# SPDX-License-Identifier: GPL-2.0
"""An online CUDA server's loop for bench/cuda-detect-cost.sh (L3n: the
lent NVIDIA GPU, real PyTorch; NVIDIA's numbers, never AMD's).

  python3 bench/cuda_loop.py WORKLOAD

WORKLOAD: eager (128 small ops a request, the issue's loop), launchbound
(tiny ops, well over 50,000 launches a second) or graph (the eager
request captured once in a CUDA graph, replayed: one graph launch a
request). Each request ends with torch.cuda.synchronize(), as a server
does before it answers. Reads commands on stdin:
  round SECS TAG   run requests for SECS; print one JSON line: requests,
                   launches/s, p50/p99/max request time in us
  quit
Prints {"ready": pid} once warmed up.
"""
import json
import sys
import time

import torch


def build(kind):
    dev = torch.device("cuda")
    if kind == "launchbound":
        x = torch.zeros(256, device=dev)

        def step():
            y = x
            for _ in range(64):
                y = y + 1.0
            return y
        return step, 64
    x = torch.randn(64, 256, device=dev)
    w = torch.randn(256, 256, device=dev) * 0.01

    def eager():
        y = x
        for _ in range(32):		# 4 launches each: 128 a request
            y = torch.relu(y @ w + 0.5) * 0.5
        return y
    if kind == "eager":
        return eager, 128
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            eager()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        eager()

    def replay():
        g.replay()
    return replay, 1


def main():
    kind = sys.argv[1]
    step, launches = build(kind)
    for _ in range(200):
        step()
    torch.cuda.synchronize()
    print(json.dumps({"ready": __import__("os").getpid(), "workload": kind}),
          flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        secs, tag = float(cmd[1]), cmd[2]
        lat = []
        end = time.perf_counter() + secs
        t_start = time.perf_counter()
        while time.perf_counter() < end:
            t0 = time.perf_counter_ns()
            step()
            torch.cuda.synchronize()
            lat.append(time.perf_counter_ns() - t0)
        el = time.perf_counter() - t_start
        lat.sort()
        n = len(lat)
        print(json.dumps({
            "workload": kind, "tag": tag, "requests": n,
            "launches_per_s": round(n * launches / el),
            "p50_us": lat[n // 2] / 1e3, "p99_us": lat[n * 99 // 100] / 1e3,
            "max_us": lat[-1] / 1e3}), flush=True)


if __name__ == "__main__":
    main()
