#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# L3 offline workload with PyTorch+ROCm (Case B): a small transformer
# encoder trained on random tokens (small grids, many short kernels).
# Progress every 100 ms, same NDJSON as tests/l3/offline.hip:
#   {"type":"progress","t_ns":N,"iters":N}   (iters = optimizer steps)
import argparse, json, sys, time

import torch
import torch.nn as nn

def now():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("offline_transformer: torch sees no GPU")
    dev = torch.device("cuda")
    vocab, d, seq = 8000, 256, 128
    layer = nn.TransformerEncoderLayer(d, 4, 1024, batch_first=True)
    model = nn.Sequential(nn.Embedding(vocab, d),
                          nn.TransformerEncoder(layer, 4),
                          nn.Linear(d, vocab)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    start = last = now()
    steps = 0
    print(json.dumps({"type": "progress", "t_ns": start, "iters": 0},
                     separators=(",", ":")), flush=True)
    while now() - start < a.duration * 1e9:
        x = torch.randint(0, vocab, (a.batch, seq), device=dev)
        out = model(x)
        loss = loss_fn(out.view(-1, vocab), x.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        steps += 1
        if now() - last >= 100_000_000:
            last = now()
            print(json.dumps({"type": "progress", "t_ns": last,
                              "iters": steps}, separators=(",", ":")),
                  flush=True)

if __name__ == "__main__":
    main()
