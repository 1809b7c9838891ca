#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# L3 online workload with PyTorch+ROCm (Case A): ResNet-50, batch 1,
# inference requests arriving as a Poisson process (open loop). Same
# NDJSON as tests/l3/online.hip, one line per request (CLOCK_BOOTTIME):
#   {"type":"request","id":N,"arrival_ns":N,"start_ns":N,"end_ns":N,
#    "busy_real_ns":N,...}  after a {"type":"start","clock":"boottime",
#   "clock_ns":N,"real_ns":N} line (both clocks, for bench/cuda/report.py)
# --notify-socket PATH: "busy"/"idle" lines to the arbiter around each
# request (its protocol: one final "ok" or "err ..." line per verb).
# Random weights (no download): latency does not depend on them.
import argparse, json, math, random, socket, sys, time

import torch
import torchvision

def now():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)

def notify(sock, verb):
    if sock is None:
        return True
    sock.sendall((verb + "\n").encode())
    buf = b""
    while True:
        c = sock.recv(1)
        if not c:
            return False
        if c != b"\n":
            buf += c
            continue
        line, buf = buf.decode(), b""
        if line == "ok":
            return True
        if line.startswith("err"):
            print("notify %s: %s" % (verb, line), file=sys.stderr)
            return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=20)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--notify-socket")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("online_resnet: torch sees no GPU (ROCm build of PyTorch?)")
    dev = torch.device("cuda")
    model = torchvision.models.resnet50(weights=None).eval().to(dev)
    x = torch.randn(1, 3, 224, 224, device=dev)
    with torch.no_grad():
        for _ in range(5):  # warm up: kernels compiled and cached
            model(x)
    torch.cuda.synchronize()
    sock = None
    if a.notify_socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(a.notify_socket)
    rnd = random.Random(a.seed)
    print(json.dumps({"type": "start", "clock": "boottime",
                      "clock_ns": now(), "real_ns": time.time_ns()},
                     separators=(",", ":")), flush=True)
    t0 = arrival = now()
    i = 0
    with torch.no_grad():
        while True:
            arrival += int(rnd.expovariate(a.rate) * 1e9)
            if arrival - t0 > a.duration * 1e9:
                break
            wait = (arrival - now()) / 1e9
            if wait > 0:
                time.sleep(wait)
            start = now()
            breal = time.time_ns()
            err = None if notify(sock, "busy") else "notify busy failed"
            model(x)
            torch.cuda.synchronize()
            end = now()
            if not notify(sock, "idle") and err is None:
                err = "notify idle failed"
            rec = {"type": "request", "id": i, "arrival_ns": arrival,
                   "start_ns": start, "end_ns": end, "busy_real_ns": breal,
                   "model": "resnet50"}
            if err:
                rec["error"] = err
            print(json.dumps(rec, separators=(",", ":")), flush=True)
            i += 1

if __name__ == "__main__":
    main()
