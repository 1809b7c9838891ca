#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The offline (best-effort) side of the CUDA co-location benchmark
# (bench/cuda/colocate.sh): a training loop on synthetic data with random
# weights (no download), until SIGTERM/SIGINT or --max-seconds.
#   --model cnn  (Case A) torchvision resnet50, bf16 autocast,
#                channels_last, SGD with momentum, --batch images/step
#                (default 256); throughput in images/s.
#   --model lm   (Case B) a GPT-2-style decoder from transformers
#                (n_embd 1024, 16 layers, ~250 M params), bf16 autocast,
#                fused AdamW, --batch sequences of --seq tokens;
#                throughput in tokens/s.
# Each step ends with loss.item() (a synchronize, as a training loop
# that logs its loss has), so a step's time stamp is its completion.
# After --warmup-steps steps (cuDNN autotuning, allocator growth) it
# prints "ready" and creates --ready-file: the runner and the online
# server start measuring then.
#
# Output, stdout, one JSON object per line (clock: CLOCK_MONOTONIC ns):
#   {"type":"start","model":..,"params":N,"unit":"images"|"tokens",
#    "per_step":N,"pid":N,"mono_ns":N,"real_ns":N,...}
#   {"type":"ready","t_ns":N}
#   {"type":"progress","t_ns":N,"iters":N,"items":N}   every step
#                     (iters and items counted from the start, warm-up
#                     included; the AMD kit's progress line has t_ns and
#                     iters too)
#   {"type":"summary","iters":N,"items":N,"items_per_s":F}  (after ready)
# Exit 0 (stopped by a signal or --max-seconds), 1 on a CUDA error.
import argparse
import json
import os
import signal
import sys
import time

T_PROC = time.monotonic()


def mono():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def emit(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


stop = False


def on_signal(sig, frame):
    global stop
    stop = True


def build(a, torch):
    dev = torch.device("cuda")
    if a.model == "cnn":
        import torchvision
        m = torchvision.models.resnet50(weights=None).to(
            dev, memory_format=torch.channels_last).train()
        x = torch.randn(a.batch, 3, 224, 224, device=dev).to(
            memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (a.batch,), device=dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        lossf = torch.nn.CrossEntropyLoss()

        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = lossf(m(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()
        per, unit = a.batch, "images"
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(vocab_size=50257, n_positions=max(1024, a.seq),
                         n_embd=a.hidden, n_layer=a.layers,
                         n_head=a.hidden // 64)
        with torch.device(dev):
            m = GPT2LMHeadModel(cfg)
        m.train()
        g = torch.Generator(device="cpu").manual_seed(2)
        x = torch.randint(0, 50257, (a.batch, a.seq), generator=g).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)

        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = m(input_ids=x, labels=x).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()
        per, unit = a.batch * a.seq, "tokens"
    params = sum(p.numel() for p in m.parameters())
    print("%s: torch and the model ready %.1f s after start (%.0f M "
          "params)" % ("offline", time.monotonic() - T_PROC, params / 1e6),
          file=sys.stderr, flush=True)
    return step, params, per, unit


def main():
    ap = argparse.ArgumentParser(description="offline trainer (see header)")
    ap.add_argument("--model", choices=("cnn", "lm"), required=True)
    ap.add_argument("--batch", type=int)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--warmup-steps", type=int, default=5)
    ap.add_argument("--ready-file")
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    if a.batch is None:
        a.batch = 256 if a.model == "cnn" else 16
    if a.batch < 1 or a.seq < 1:
        ap.error("--batch and --seq must be positive")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    import torch
    if not torch.cuda.is_available():
        sys.exit("offline_trainer: torch sees no CUDA GPU")
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    step, params, per, unit = build(a, torch)
    t_start = mono()
    emit({"type": "start", "model": a.model, "params": params,
          "unit": unit, "per_step": per, "batch": a.batch,
          "pid": os.getpid(), "mono_ns": t_start, "real_ns": time.time_ns(),
          "torch": torch.__version__})
    iters = 0
    t_ready = None
    i_ready = 0
    end = t_start + int(a.max_seconds * 1e9)
    report = 0
    while not stop and mono() < end:
        loss = step()
        iters += 1
        t = mono()
        emit({"type": "progress", "t_ns": t, "iters": iters,
              "items": iters * per})
        if t_ready is None and iters >= a.warmup_steps:
            t_ready, i_ready = t, iters
            emit({"type": "ready", "t_ns": t})
            if a.ready_file:
                with open(a.ready_file, "w") as f:
                    f.write("%d\n" % os.getpid())
            print("offline: ready after %d steps, %.1f s (loss %.3f)" %
                  (iters, (t - t_start) / 1e9, loss), file=sys.stderr,
                  flush=True)
            report = t + 5_000_000_000
        elif t_ready is not None and t > report:
            print("offline: %.0f %s/s since ready" %
                  ((iters - i_ready) * per / ((t - t_ready) / 1e9), unit),
                  file=sys.stderr, flush=True)
            report = t + 5_000_000_000
    if t_ready is not None and iters > i_ready:
        t = mono()
        emit({"type": "summary", "iters": iters - i_ready,
              "items": (iters - i_ready) * per,
              "items_per_s": round((iters - i_ready) * per /
                                   ((t - t_ready) / 1e9), 2)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
