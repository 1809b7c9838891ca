#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The online (latency-critical) side of the CUDA co-location benchmark
# (bench/cuda/colocate.sh). An inference server with requests arriving
# at a steady rate, open loop: request k is due at t0 + k / rate and its
# latency runs from that due time, so queueing behind a slow request
# shows. Random weights built from a config (no download): latency does
# not depend on the weights.
#   --model llm  (Case A) a Llama-style decoder from transformers
#                (hidden 1024, 16 layers, ~270 M params, bf16), batch 1:
#                a --prompt-len token prefill, then --new-tokens greedy
#                decode steps with the KV cache (a manual loop: a fixed
#                number of tokens, no early stop).
#   --model cnn  (Case B) torchvision resnet50, bf16, channels_last,
#                inference at --batch (default 1).
# A request starts before its busy (the wait for the GPU counts) and
# ends when torch.cuda.synchronize() returns.
# --notify: says "busy" to the gpreempt daemon before a request's first
# GPU call and "idle" after its synchronize, over one persistent
# connection (bench/cuda/gpnotify.py; --socket PATH, else
# $GPREEMPT_SOCKET, else /run/gpreempt/ctl.sock).
# Warm-up: --warmup-requests back to back (not recorded); then, with
# --wait-file F, waits for F (the offline trainer's warm-up is over),
# then serves for --duration seconds of arrivals and drains the backlog
# for at most --drain seconds (what is left is recorded as dropped).
#
# Output, stdout, one JSON object per line (clock: CLOCK_MONOTONIC ns):
#   {"type":"start","model":..,"params":N,"pid":N,"mono_ns":N,
#    "real_ns":N,...}       the two clocks read together, to place
#                           CLOCK_REALTIME log lines (the daemon's)
#   {"type":"request","id":N,"arrival_ns":N,"start_ns":N,"end_ns":N,
#    "busy_us":F,"idle_us":F,"busy_real_ns":N[,"error":".."]
#    [,"dropped":true]}     arrival = due time; latency = end - arrival
#   {"type":"summary","requests":N,"dropped":N,"window_ns":[A,B],
#    "busy_frac":F,"p50_ms":F,"p99_ms":F,"service_p50_ms":F}
# The request line's fields match the AMD kit's (tests/l3/online.hip)
# but for the clock: that one is CLOCK_BOOTTIME; only differences and
# ratios within a run are used.
# Progress on stderr every 5 s. Exit 0 once the run is done (a failed
# notify is counted in its request's "error" and the summary's "errors",
# not fatal), 1 on an error, 2 on bad usage.
import argparse
import json
import math
import os
import sys
import time

T_PROC = time.monotonic()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpnotify  # noqa: E402


def mono():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def emit(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    k = max(0, min(len(sorted_vals) - 1,
                   math.ceil(p * len(sorted_vals)) - 1))
    return sorted_vals[k]


def build(a, torch):
    dev = torch.device("cuda")
    if a.model == "llm":
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(vocab_size=32000, hidden_size=a.hidden,
                          intermediate_size=a.hidden * 11 // 4,
                          num_hidden_layers=a.layers,
                          num_attention_heads=a.hidden // 64,
                          num_key_value_heads=a.hidden // 64,
                          max_position_embeddings=2048)
        with torch.device(dev):
            m = LlamaForCausalLM(cfg)
        m = m.to(torch.bfloat16).eval()
        g = torch.Generator(device="cpu").manual_seed(1)
        prompt = torch.randint(0, 32000, (1, a.prompt_len),
                               generator=g).to(dev)

        def request():
            out = m(input_ids=prompt, use_cache=True)
            pkv = out.past_key_values
            tok = out.logits[:, -1].argmax(-1, keepdim=True)
            for _ in range(a.new_tokens - 1):
                out = m(input_ids=tok, past_key_values=pkv, use_cache=True)
                pkv = out.past_key_values
                tok = out.logits[:, -1].argmax(-1, keepdim=True)
            torch.cuda.synchronize()
    else:
        import torchvision
        m = torchvision.models.resnet50(weights=None)
        m = m.to(dev, dtype=torch.bfloat16,
                 memory_format=torch.channels_last).eval()
        x = torch.randn(a.batch, 3, 224, 224, device=dev,
                        dtype=torch.bfloat16).to(
                            memory_format=torch.channels_last)

        def request():
            m(x)
            torch.cuda.synchronize()
    params = sum(p.numel() for p in m.parameters())
    print("%s: torch and the model ready %.1f s after start (%.0f M "
          "params)" % ("online", time.monotonic() - T_PROC, params / 1e6),
          file=sys.stderr, flush=True)
    return request, params


def main():
    ap = argparse.ArgumentParser(description="online server (see header)")
    ap.add_argument("--model", choices=("llm", "cnn"), required=True)
    ap.add_argument("--rate", type=float, required=True, help="requests/s")
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--drain", type=float, default=5)
    ap.add_argument("--warmup-requests", type=int, default=10)
    ap.add_argument("--wait-file")
    ap.add_argument("--wait-timeout", type=float, default=180)
    ap.add_argument("--notify", action="store_true")
    ap.add_argument("--socket")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--prompt-len", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=16)
    a = ap.parse_args()
    if a.rate <= 0 or a.duration <= 0 or a.new_tokens < 1:
        ap.error("--rate, --duration and --new-tokens must be positive")

    import torch
    if not torch.cuda.is_available():
        sys.exit("online_server: torch sees no CUDA GPU")
    torch.backends.cudnn.benchmark = True
    request, params = build(a, torch)
    emit({"type": "start", "model": a.model, "params": params,
          "pid": os.getpid(), "rate": a.rate, "duration_s": a.duration,
          "batch": a.batch, "prompt_len": a.prompt_len,
          "new_tokens": a.new_tokens, "notify": a.notify,
          "mono_ns": mono(), "real_ns": time.time_ns(),
          "torch": torch.__version__})
    gp = gpnotify.Notifier(a.socket) if a.notify else None

    def serve():
        busy = idle = None
        err = None
        s = mono()
        breal = time.time_ns()
        if gp:
            try:
                busy = gp.busy() / 1e3
            except gpnotify.NotifyError as e:
                err = str(e)
        with torch.inference_mode():
            request()
        e = mono()
        if gp:
            try:
                idle = gp.idle() / 1e3
            except gpnotify.NotifyError as x:
                err = err or str(x)
        return s, e, busy, idle, breal, err

    t = mono()
    for _ in range(a.warmup_requests):
        serve()
    print("online: warm-up %d requests in %.1f s" %
          (a.warmup_requests, (mono() - t) / 1e9), file=sys.stderr,
          flush=True)
    if a.wait_file:
        dl = time.monotonic() + a.wait_timeout
        while not os.path.exists(a.wait_file):
            if time.monotonic() > dl:
                sys.exit("online_server: %s did not appear in %.0f s" %
                         (a.wait_file, a.wait_timeout))
            time.sleep(0.05)

    period = int(1e9 / a.rate)
    n = max(1, int(a.duration * a.rate))
    t0 = mono() + 1_000_000
    deadline = t0 + int((a.duration + a.drain) * 1e9)
    lat, svc, failed = [], [], 0
    busy_ns = 0
    last_end = t0
    report = t0 + 5_000_000_000
    for k in range(n):
        due = t0 + k * period
        now = mono()
        if now >= deadline:
            emit({"type": "request", "id": k, "arrival_ns": due,
                  "start_ns": None, "end_ns": now, "dropped": True})
            lat.append((now - due) / 1e6)
            continue
        if due > now:
            time.sleep((due - now) / 1e9)
        s, e, busy, idle, breal, err = serve()
        rec = {"type": "request", "id": k, "arrival_ns": due,
               "start_ns": s, "end_ns": e, "busy_real_ns": breal}
        if busy is not None:
            rec["busy_us"] = round(busy, 1)
        if idle is not None:
            rec["idle_us"] = round(idle, 1)
        if err:
            rec["error"] = err
            failed += 1
        emit(rec)
        lat.append((e - due) / 1e6)
        svc.append((e - s) / 1e6)
        busy_ns += e - s
        last_end = e
        if e > report:
            ls = sorted(lat)
            print("online: %d/%d requests, p50 %.2f ms, p99 %.2f ms" %
                  (k + 1, n, pct(ls, 0.5), pct(ls, 0.99)),
                  file=sys.stderr, flush=True)
            report = e + 5_000_000_000
    t1 = max(t0 + int(a.duration * 1e9), last_end)
    ls, ss = sorted(lat), sorted(svc)
    emit({"type": "summary", "requests": n, "dropped": n - len(svc),
          "errors": failed, "window_ns": [t0, t1],
          "busy_frac": round(busy_ns / (t1 - t0), 4),
          "p50_ms": pct(ls, 0.5), "p99_ms": pct(ls, 0.99),
          "service_p50_ms": pct(ss, 0.5),
          "reconnects": gp.reconnects if gp else 0})
    print("online: done, %d requests (%d dropped, %d errors), p50 %.2f ms, "
          "p99 %.2f ms, busy %.0f%%" %
          (n, n - len(svc), failed, pct(ls, 0.5), pct(ls, 0.99),
           100 * busy_ns / (t1 - t0)), file=sys.stderr, flush=True)
    if gp:
        gp.close()
    return 0    # failed notifies are in the lines and the summary


if __name__ == "__main__":
    sys.exit(main())
