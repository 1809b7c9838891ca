#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The co-location report: one markdown table per run folder, from the raw
# output of bench/cuda/colocate.sh (OUT/rR/ROW/) or of the AMD kit
# scripts/l3-colocate.sh (OUT/runs/NAME/: one round; its run names map
# to these rows: online-alone alone, offline-alone offline, both-plain
# shared, both-notify notify, both-launch launch, both-queues queues).
# Standard library only (no torch): CI runs it on a fixture.
#
#   report.py [--json] OUT
#
# Per row and round:
#   online p50/p99   nearest-rank percentiles of latency = end - due
#                    time (open loop; a dropped request counts with its
#                    lower bound), as a ratio to the same round's alone
#   offline          items (images, tokens; iterations in the AMD kit)
#                    per second over the online server's measured window
#                    (the offline row: from its ready line, or the AMD
#                    kit's marks.ndjson, else its first progress line,
#                    to its last), linearly
#                    interpolated between progress lines; as a ratio to
#                    the same round's offline row, and to the ceiling =
#                    offline alone x (1 - online busy fraction of the
#                    same round's alone row: the sum of its requests'
#                    end - start over its window)
#   (the table always lists alone, offline, shared, notify, launch and
#   mps, "not run" where absent, so two GPUs' tables compare row for row)
#   suspends/s       the daemon log's successful suspend lines
#                    ("suspend|lock pid N (CAUSE): ... X ms") inside the
#                    online window / its length (no start line pairing
#                    the clocks: all of the log's); without log lines,
#                    the `policy` counter over the daemon's life
#   lock, unlock     the X ms of those suspend (lock) and resume (unlock)
#                    lines: the backend call's own duration
#   busy->locked     a suspend line's time (HH:MM:SS.mmm, CLOCK_REALTIME,
#                    UTC: the runner starts the daemon with TZ=UTC; + 0.5
#                    ms, the middle of its truncated millisecond) minus the
#                    CLOCK_REALTIME the server read just before its latest
#                    busy (busy_real_ns; in the launch row, before the
#                    request's first GPU call). Resolution 1 ms. Only
#                    suspends with cause busy, at most 1 s after a busy.
#   (the AMD kit's runs: from gpreempt-trace's events when the daemon's
#   log has none, on the workloads' clock: busy->locked from the start of
#   the latest request, to the nanosecond)
#   (without any of these: the daemon's /metrics histograms, scraped
#   before it stopped, whole life: "<=X", the log2 bucket's upper bound)
#   busy RTT         the notify row's busy round trip (the daemon answers
#                    "ok" once offline is suspended): busy->locked as the
#                    server waits for it, to the microsecond; the idle
#                    round trip (no GPU action) is printed under the table
# Rows whose meta.txt status is not ok (failed, skipped, or no status:
# stopped by a signal) count in no ratio; the raw table lists them.
# A cell over several rounds: the median, and [min-max] across rounds.
# Targets (printed, judged on the median): online p99 within 10% of
# alone (ratio <= 1.10); offline loss < 20% of the ceiling (ratio to the
# ceiling > 0.80). '-' where a value is absent.
# Exit 0, 2 bad usage or no row found.
import json
import math
import os
import re
import sys
from datetime import datetime, timezone

ROWS = ["alone", "offline", "shared", "notify", "launch", "queues", "mps"]
AMD_NAMES = {"online-alone": "alone", "offline-alone": "offline",
             "both-plain": "shared", "both-notify": "notify",
             "both-launch": "launch", "both-queues": "queues",
             "both-mps": "mps"}
LABEL = {"alone": "online alone", "offline": "offline alone",
         "shared": "shared (no arbitration)",
         "notify": "gpreempt, notify", "launch": "gpreempt, launch",
         "queues": "gpreempt, queues (AMD)", "mps": "MPS"}
P99_TARGET = 1.10
CEIL_TARGET = 0.80

LOG_OP = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) .*?\b"
                    r"(suspend|resume|lock|unlock) pid (\d+)(?: \(([^)]*)\))?"
                    r"(.*)$")
MS = re.compile(r"([0-9]+(?:\.[0-9]+)?) ms\b")


def pct(vals, p):
    if not vals:
        return None
    s = sorted(vals)
    return s[max(0, min(len(s) - 1, math.ceil(p * len(s)) - 1))]


def median(vals):
    v = [x for x in vals if x is not None]
    if not v:
        return None
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def ndjson(path):
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                if isinstance(o, dict):
                    out.append(o)
    except OSError:
        pass
    return out


def kv_file(path):
    d = {}
    try:
        with open(path) as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    d.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    return d


def online_stats(objs):
    req = [o for o in objs if o.get("type") == "request"
           and isinstance(o.get("arrival_ns"), int)
           and isinstance(o.get("end_ns"), int)]
    if not req:
        return None
    summ = next((o for o in objs if o.get("type") == "summary"), {})
    start = next((o for o in objs if o.get("type") == "start"), {})
    lat = [(o["end_ns"] - o["arrival_ns"]) / 1e6 for o in req]
    served = [o for o in req if isinstance(o.get("start_ns"), int)]
    w = summ.get("window_ns")
    if not (isinstance(w, list) and len(w) == 2):
        w = [min(o["arrival_ns"] for o in req),
             max(o["end_ns"] for o in req)]
    span = max(1, w[1] - w[0])
    busy = sum(o["end_ns"] - o["start_ns"] for o in served)
    off = None      # CLOCK_REALTIME - the file's clock (the AMD kit's
    clk = start.get("mono_ns", start.get("clock_ns"))   # is boottime)
    if isinstance(start.get("real_ns"), int) and isinstance(clk, int):
        off = start["real_ns"] - clk
    return {"n": len(req), "dropped": len(req) - len(served),
            "errors": sum(1 for o in req if o.get("error")),
            "p50": pct(lat, 0.5), "p99": pct(lat, 0.99),
            "window": w, "busy_frac": busy / span, "real_off": off,
            "starts": sorted(o["start_ns"] for o in served),
            "busy_real": sorted(o["busy_real_ns"] for o in served
                                if isinstance(o.get("busy_real_ns"), int)),
            "busy_rtt": [o["busy_us"] / 1e3 for o in served
                         if isinstance(o.get("busy_us"), (int, float))],
            "idle_rtt": [o["idle_us"] / 1e3 for o in served
                         if isinstance(o.get("idle_us"), (int, float))]}


def items_at(prog, t):
    """Items done at time t, linear between progress points."""
    if t <= prog[0][0]:
        return prog[0][1]
    for (t0, i0), (t1, i1) in zip(prog, prog[1:]):
        if t0 <= t <= t1:
            return i0 + (i1 - i0) * (t - t0) / max(1, t1 - t0)
    return prog[-1][1]


def offline_rate(objs, window):
    prog = sorted((o["t_ns"], o.get("items", o.get("iters")))
                  for o in objs if o.get("type") == "progress"
                  and isinstance(o.get("t_ns"), int)
                  and isinstance(o.get("items", o.get("iters")),
                                 (int, float)))
    if len(prog) < 2:
        return None
    if window is None:
        ready = next((o["t_ns"] for o in objs if o.get("type") == "ready"
                      and isinstance(o.get("t_ns"), int)), prog[0][0])
        window = [ready, prog[-1][0]]
    a, b = window
    b = min(b, prog[-1][0]) if prog[-1][0] > a else b
    if b <= a:
        return 0.0
    return (items_at(prog, b) - items_at(prog, a)) / ((b - a) / 1e9)


def daemon_stats(d, on, meta):
    """Suspend/resume lines of d/daemon.log; None without a log."""
    path = os.path.join(d, "daemon.log")
    if not os.path.exists(path):
        return None
    date = meta.get("utc_date")
    day0 = None
    if date:
        try:
            day0 = int(datetime.strptime(date, "%Y-%m-%d").replace(
                tzinfo=timezone.utc).timestamp()) * 10**9
        except ValueError:
            day0 = None
    start_real = meta.get("start_real_ns")
    start_real = int(start_real) if start_real and \
        start_real.isdigit() else None
    ev = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LOG_OP.match(line.strip())
            if not m:
                continue
            hh, mm, ss, ms, op, _pid, cause, rest = m.groups()
            if "fail" in rest[:12]:
                continue
            nums = MS.findall(rest)
            if not nums:
                continue
            t = None
            if day0 is not None:
                t = day0 + ((int(hh) * 60 + int(mm)) * 60 + int(ss)) * \
                    10**9 + int(ms) * 10**6 + 500_000
                if start_real and t < start_real - 3600 * 10**9:
                    t += 86400 * 10**9     # the row crossed midnight
            ev.append((t, "lock" if op in ("suspend", "lock") else
                       "unlock", cause, float(nums[-1])))
    # the online window in CLOCK_REALTIME, when the two clocks are known
    win = None
    if on and on["real_off"] is not None:
        win = [on["window"][0] + on["real_off"],
               on["window"][1] + on["real_off"]]

    def inwin(t):
        return win is None or t is None or win[0] <= t <= win[1]
    locks = [e for e in ev if e[1] == "lock" and inwin(e[0])]
    unlocks = [e for e in ev if e[1] == "unlock" and inwin(e[0])]
    st = {"lock_ms": [e[3] for e in locks],
          "unlock_ms": [e[3] for e in unlocks], "sps": None, "b2l": []}
    if win and locks:
        st["sps"] = len(locks) / ((win[1] - win[0]) / 1e9)
    elif locks and on:  # no clock pairing: every suspend of the log
        st["sps"] = len(locks) / ((on["window"][1] - on["window"][0]) / 1e9)
    elif not ev:
        st["sps"] = policy_sps(d, meta)
    if on and on["busy_real"]:
        import bisect
        br = on["busy_real"]
        for t, _, cause, _ in locks:
            if t is None or cause not in ("busy", None):
                continue
            k = bisect.bisect_right(br, t) - 1
            if k >= 0 and t - br[k] <= 10**9:
                st["b2l"].append((t - br[k]) / 1e6)
    return st


def trace_stats(d, on):
    """The AMD kit's gpreempt-trace -j events (CLOCK_BOOTTIME, the
    workloads' clock there): DBG_TRAP SUSPEND/RESUME_QUEUES when traced,
    else the kernel's suspend/resume, as the kit's own analysis takes
    them (tests/kit/l3an.c). None without events."""
    ev = [o for o in ndjson(os.path.join(d, "trace.ndjson"))
          if o.get("type") == "event" and isinstance(o.get("ts_boot_ns"), int)
          and isinstance(o.get("duration_ns"), int)
          and not (isinstance(o.get("ret"), int) and o["ret"] < 0)]
    dbg = [o for o in ev if o.get("op") == "dbg_trap" and
           o.get("dbg_op") in ("suspend_queues", "resume_queues")]
    if dbg:
        lk = [o for o in dbg if o["dbg_op"] == "suspend_queues"]
        ul = [o for o in dbg if o["dbg_op"] == "resume_queues"]
    else:
        lk = [o for o in ev if o.get("op") == "suspend"]
        ul = [o for o in ev if o.get("op") == "resume"]
    if not lk and not ul:
        return None
    if on:
        a, b = on["window"]
        lk = [o for o in lk if a <= o["ts_boot_ns"] <= b]
        ul = [o for o in ul if a <= o["ts_boot_ns"] <= b]
    st = {"lock_ms": [o["duration_ns"] / 1e6 for o in lk],
          "unlock_ms": [o["duration_ns"] / 1e6 for o in ul],
          "sps": len(lk) / ((b - a) / 1e9) if on else None, "b2l": []}
    if on and on["starts"]:
        import bisect
        for o in lk:
            k = bisect.bisect_right(on["starts"], o["ts_boot_ns"]) - 1
            if k >= 0 and o["ts_boot_ns"] - on["starts"][k] <= 10**9:
                st["b2l"].append((o["ts_boot_ns"] - on["starts"][k]) / 1e6)
    return st


def prom_quantiles(txt, name):
    """p50, p99 of a Prometheus histogram NAME (all label sets summed):
    the upper bound of the bucket holding it, in ms; None, None."""
    cum = {}
    for m in re.finditer(r"^%s_bucket\{[^}]*le=\"([^\"]+)\"[^}]*\} "
                         r"([0-9.e+]+)$" % re.escape(name), txt, re.M):
        le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
        cum[le] = cum.get(le, 0) + float(m.group(2))
    if not cum or not cum.get(float("inf")):
        return None, None
    tot = cum[float("inf")]
    out = []
    for p in (0.5, 0.99):
        le = next(le for le in sorted(cum) if cum[le] >= p * tot)
        out.append(None if le == float("inf") else le * 1e3)
    return out


def metrics_stats(d, on):
    """Last resort: the daemon's /metrics scrape (metrics.txt): log2
    buckets, so a percentile is its bucket's upper bound (marked '<=').
    Over the daemon's whole life, warm-up included."""
    try:
        txt = open(os.path.join(d, "metrics.txt"), errors="replace").read()
    except OSError:
        return None
    lk = prom_quantiles(txt, "gpreempt_policy_suspend_duration_seconds")
    ul = prom_quantiles(txt, "gpreempt_policy_resume_duration_seconds")
    tb = prom_quantiles(txt, "gpreempt_policy_trigger_to_suspend_seconds")
    if lk == (None, None) and ul == (None, None):
        return None
    return {"lock_ms": [], "unlock_ms": [], "b2l": [], "sps": None,
            "bounds": {"lock": lk, "unlock": ul, "b2l": tb}}


def policy_sps(d, meta):
    try:
        txt = open(os.path.join(d, "policy.txt"), errors="replace").read()
    except OSError:
        return None
    m = re.search(r"(\d+) suspends", txt)
    a, b = meta.get("start_real_ns", ""), meta.get("end_real_ns", "")
    if not m or not a.isdigit() or not b.isdigit() or int(b) <= int(a):
        return None
    return int(m.group(1)) / ((int(b) - int(a)) / 1e9)


def load(out):
    """{round: {row: dir}}"""
    rounds = {}
    if os.path.isdir(os.path.join(out, "runs")):
        for name in sorted(os.listdir(os.path.join(out, "runs"))):
            if name in AMD_NAMES:
                rounds.setdefault(1, {})[AMD_NAMES[name]] = \
                    os.path.join(out, "runs", name)
    for name in sorted(os.listdir(out)):
        m = re.fullmatch(r"r(\d+)", name)
        if not m or not os.path.isdir(os.path.join(out, name)):
            continue
        for row in os.listdir(os.path.join(out, name)):
            if row in ROWS:
                rounds.setdefault(int(m.group(1)), {})[row] = \
                    os.path.join(out, name, row)
    return rounds


def analyse(rounds):
    res = {}        # row -> list of per-round dicts
    for rnd in sorted(rounds):
        dirs = rounds[rnd]
        per = {}
        for row, d in dirs.items():
            meta = kv_file(os.path.join(d, "meta.txt"))
            on = online_stats(ndjson(os.path.join(d, "online.ndjson")))
            offo = ndjson(os.path.join(d, "offline.ndjson")) + \
                ndjson(os.path.join(d, "marks.ndjson"))   # the AMD kit's
            thr = offline_rate(offo, on["window"] if on else None)
            unit = next((o.get("unit") for o in offo
                         if o.get("type") == "start"), None)
            # a row the runner did not finish (a signal) has no status
            status = meta.get("status", "incomplete" if meta else "ok")
            raw = (on, thr)
            if not status.startswith("ok"):   # in the raw table only
                on, thr = None, None
            per[row] = {"round": rnd, "on": on, "thr": thr, "unit": unit,
                        "status": status, "raw": raw,
                        "dm": daemon_stats(d, on, meta) if on or thr
                        else None}
            if (on or thr) and (not per[row]["dm"] or not (
                    per[row]["dm"]["lock_ms"] or per[row]["dm"]["unlock_ms"])):
                per[row]["dm"] = trace_stats(d, on) or \
                    metrics_stats(d, on) or per[row]["dm"]
        alone = per.get("alone", {}).get("on")
        offa = per.get("offline", {}).get("thr")
        ceil = None
        if offa and alone:
            ceil = offa * (1 - alone["busy_frac"])
        for row, r in per.items():
            on = r["on"]
            r["p50x"] = on["p50"] / alone["p50"] if on and alone and \
                alone["p50"] else None
            r["p99x"] = on["p99"] / alone["p99"] if on and alone and \
                alone["p99"] else None
            r["offx"] = r["thr"] / offa if r["thr"] is not None and offa \
                else None
            r["ceilx"] = r["thr"] / ceil if r["thr"] is not None and ceil \
                and row != "offline" else None
            r["ceiling"] = ceil
            res.setdefault(row, []).append(r)
    return res


def cell(vals, fmt="%.2f"):
    v = [x for x in vals if x is not None]
    if not v:
        return "-"
    s = fmt % median(v)
    if len(v) > 1:
        s += " [" + fmt % min(v) + "-" + fmt % max(v) + "]"
    return s


def pair(lists, fmt="%.2f"):
    """p50/p99 of events pooled over rounds."""
    v = [x for lst in lists for x in lst]
    if not v:
        return "-"
    return (fmt % pct(v, 0.5)) + " / " + (fmt % pct(v, 0.99))


def pair_or_bound(dm, key, fmt="%.2f"):
    s = pair([d[key + "_ms" if key != "b2l" else "b2l"] for d in dm], fmt)
    if s != "-":
        return s
    b = [d["bounds"][key] for d in dm if d.get("bounds") and
         d["bounds"].get(key) and d["bounds"][key][0] is not None]
    if not b:
        return "-"
    return "<=" + (fmt % max(x[0] for x in b)) + " / <=" + \
        (fmt % max(x[1] or float("inf") for x in b))


def render(out, res, host):
    L = []
    L.append("# Co-location, case %s" % host.get("case", "?"))
    L.append("")
    L.append("GPU: %s; CUDA %s; kernel %s; %s; commit %s; torch %s" % (
        host.get("gpu", "-"), host.get("cuda", "-"), host.get("kernel", "-"),
        host.get("date", "-"), host.get("commit", "-"),
        host.get("torch", "-")))
    if host.get("online"):
        L.append("online: `%s`; offline: `%s`" % (host["online"],
                                                  host.get("offline", "")))
    nr = max((len(v) for v in res.values()), default=0)
    L.append("rounds: %d; a cell is the median [min-max] across rounds; "
             "latency ratios to online alone, throughput to offline alone "
             "and to the ceiling, each of the same round." % nr)
    L.append("")
    L.append("| row | online p50 x | online p99 x | offline x alone | "
             "offline x ceiling | suspends/s | suspend (lock) p50/p99 ms | "
             "resume (unlock) p50/p99 ms | busy->locked p50/p99 ms | "
             "busy RTT p50/p99 ms |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in ROWS:
        rs = res.get(row)
        if not rs:
            if row != "queues":     # the same rows on every GPU
                L.append("| %s | not run |%s" % (LABEL[row], " |" * 9))
            continue
        dm = [r["dm"] for r in rs if r["dm"]]
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            LABEL[row], cell([r["p50x"] for r in rs]),
            cell([r["p99x"] for r in rs]), cell([r["offx"] for r in rs]),
            cell([r["ceilx"] for r in rs]),
            cell([d["sps"] for d in dm], "%.1f"),
            pair_or_bound(dm, "lock"), pair_or_bound(dm, "unlock"),
            pair_or_bound(dm, "b2l", "%.1f"),
            pair([r["on"]["busy_rtt"] for r in rs if r["on"]])))
    rtt = [r["on"]["idle_rtt"] for r in res.get("notify", []) if r["on"]]
    if any(rtt):
        L.append("")
        L.append("notify round trip with no GPU action (idle): p50 / p99 "
                 "%s ms" % pair(rtt, "%.3f"))
    L.append("")
    L.append("Targets (on the medians): online p99 <= %.2f x alone; "
             "offline >= %.2f x the ceiling (loss < 20%%)." %
             (P99_TARGET, CEIL_TARGET))
    L.append("")
    for row in ("shared", "notify", "launch", "queues", "mps"):
        rs = res.get(row)
        if not rs:
            continue
        p99 = median([r["p99x"] for r in rs])
        cx = median([r["ceilx"] for r in rs])
        errs = sum(r["on"]["errors"] for r in rs if r["on"])
        drops = sum(r["on"]["dropped"] for r in rs if r["on"])
        L.append("- %s: online p99 %s (%s); offline vs ceiling %s (%s)%s" % (
            LABEL[row], "-" if p99 is None else "%.2fx" % p99,
            "n/a" if p99 is None else
            ("PASS" if p99 <= P99_TARGET else "FAIL"),
            "-" if cx is None else "%.2fx" % cx,
            "n/a" if cx is None else
            ("PASS" if cx >= CEIL_TARGET else "FAIL"),
            "; %d requests failed (notify), %d dropped" % (errs, drops)
            if errs or drops else ""))
    L.append("")
    L.append("Raw, per round:")
    L.append("")
    L.append("| round | row | status | requests | dropped | errors | "
             "p50 ms | p99 ms | online busy | offline /s |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    rows = sorted(((r["round"], ROWS.index(row), row, r)
                   for row, rs in res.items() for r in rs))
    for rnd, _, row, r in rows:
        on, thr = r["raw"]
        L.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            rnd, row, r["status"], on["n"] if on else "-",
            on["dropped"] if on else "-", on["errors"] if on else "-",
            "%.2f" % on["p50"] if on else "-",
            "%.2f" % on["p99"] if on else "-",
            "%.1f%%" % (100 * on["busy_frac"]) if on else "-",
            "%.1f %s" % (thr, r["unit"] or "items")
            if thr is not None else "-"))
    return "\n".join(L) + "\n"


def main(argv):
    js = False
    if argv and argv[0] == "--json":
        js = True
        argv = argv[1:]
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: report.py [--json] OUT  (see the header)",
              file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    out = argv[0]
    if not os.path.isdir(out):
        print("report.py: no folder %s" % out, file=sys.stderr)
        return 2
    rounds = load(out)
    if not rounds:
        print("report.py: no rounds in %s (rR/ROW/ or runs/NAME/)" % out,
              file=sys.stderr)
        return 2
    res = analyse(rounds)
    host = kv_file(os.path.join(out, "host.txt"))
    if js:
        for row in ROWS:
            for r in res.get(row, []):
                o = {k: r[k] for k in ("round", "status", "thr", "unit",
                                       "p50x", "p99x", "offx", "ceilx",
                                       "ceiling")}
                o["row"] = row
                if r["on"]:
                    o.update({k: r["on"][k] for k in
                              ("n", "dropped", "errors", "p50", "p99",
                               "busy_frac")})
                if r["dm"]:
                    o["suspends_per_s"] = r["dm"]["sps"]
                    o["locks"] = len(r["dm"]["lock_ms"])
                print(json.dumps(o, sort_keys=True))
        return 0
    sys.stdout.write(render(out, res, host))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
