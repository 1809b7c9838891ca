#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a gpreempt-trace --perfetto trace, decoded by python3-protobuf from
tests/perfetto/perfetto_subset.proto (perfetto_subset_pb2 from protoc
--python_out, on PYTHONPATH). Structure, for any trace the tracer writes:

  - the first packet is a ClockSnapshot with BOOTTIME (primary) and
    MONOTONIC/REALTIME, marks the sequence's start, and every packet is
    on that one sequence; every timestamped packet is BOOTTIME (6);
  - every track is described once before use, its parent described, the
    roots named "gpreempt: ...", counters only under a GPU;
  - on every track, slice ends match begins (a stack), timestamps never
    go back on a track, and nothing is left open at the end;
  - a "SUSPEND_QUEUES"/"RESUME_QUEUES" slice carries queues_asked,
    queues_done and result; a "suspended" slice opens where a suspend
    slice ends (or at the trace's start: a queue suspended before it),
    and a RESUME_QUEUES that ends it is nested inside it.

  check_trace.py TRACE [--golden]   (--golden: also the scripted run's
                                     exact tracks and values, test_pftrace)
Prints what it checked; exits 1 with the first fault.
"""
import sys

import perfetto_subset_pb2 as pb

BOOT = 6
TE = pb.TrackEvent


def fail(msg):
    print("FAULT: " + msg)
    sys.exit(1)


def main(path, golden):
    t = pb.Trace()
    t.ParseFromString(open(path, "rb").read())
    pk = list(t.packet)
    if not pk:
        fail("no packets")
    first = pk[0]
    if not first.HasField("clock_snapshot"):
        fail("first packet is not a ClockSnapshot")
    cs = first.clock_snapshot
    ids = [c.clock_id for c in cs.clocks]
    if cs.primary_trace_clock != BOOT or ids[:1] != [BOOT] or 3 not in ids or 1 not in ids:
        fail(f"clock snapshot: primary {cs.primary_trace_clock}, clocks {ids}")
    if not (first.sequence_flags & 1 and first.first_packet_on_sequence):
        fail("first packet does not start the sequence")
    seq = first.trusted_packet_sequence_id
    if not seq:
        fail("no trusted_packet_sequence_id")
    tracks, stack, last_ts, counters = {}, {}, {}, {}
    slices = []                     # (track, name, begin, end, annots)
    for i, p in enumerate(pk):
        if p.trusted_packet_sequence_id != seq:
            fail(f"packet {i} on sequence {p.trusted_packet_sequence_id}")
        if p.HasField("timestamp") and p.timestamp_clock_id != BOOT and i:
            fail(f"packet {i}: clock {p.timestamp_clock_id}, not BOOTTIME")
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.uuid in tracks:
                fail(f"track {d.uuid} described twice")
            if d.parent_uuid and d.parent_uuid not in tracks:
                fail(f"track {d.name!r}: parent {d.parent_uuid} not described")
            if not d.parent_uuid and not d.name.startswith("gpreempt: "):
                fail(f"root track {d.name!r} not named 'gpreempt: ...'")
            if d.HasField("counter") and not tracks[d.parent_uuid][0].startswith("gpreempt: GPU"):
                fail(f"counter {d.name!r} not under a GPU")
            tracks[d.uuid] = (d.name, d.parent_uuid, d.HasField("counter"))
        if p.HasField("track_event"):
            e = p.track_event
            if e.track_uuid not in tracks:
                fail(f"packet {i}: event on undescribed track {e.track_uuid}")
            ts = p.timestamp
            if ts < last_ts.get(e.track_uuid, 0):
                fail(f"packet {i}: {ts} before the last event on {tracks[e.track_uuid][0]!r}")
            last_ts[e.track_uuid] = ts
            if e.type == TE.TYPE_COUNTER:
                counters.setdefault(e.track_uuid, []).append((ts, e.counter_value))
                continue
            st = stack.setdefault(e.track_uuid, [])
            if e.type == TE.TYPE_SLICE_BEGIN:
                ann = {}
                for a in e.debug_annotations:
                    ann[a.name] = a.string_value if a.HasField("string_value") else (
                        a.uint_value if a.HasField("uint_value") else a.int_value)
                st.append((e.name, ts, ann))
            elif e.type == TE.TYPE_SLICE_END:
                if not st:
                    fail(f"packet {i}: slice end with none open on {tracks[e.track_uuid][0]!r}")
                name, b, ann = st.pop()
                if ts < b:
                    fail(f"{name}: ends at {ts} before its begin {b}")
                slices.append((e.track_uuid, name, b, ts, ann, len(st)))
    for u, st in stack.items():
        if st:
            fail(f"{tracks[u][0]!r}: {[s[0] for s in st]} left open")
    for s in slices:
        u, name, b, end, ann, depth = s
        if name in ("SUSPEND_QUEUES", "RESUME_QUEUES"):
            for k in ("queues_asked", "queues_done", "result"):
                if k not in ann:
                    fail(f"{name} at {b}: no {k}")
        if name == "suspended":
            if b != first.timestamp and not any(
                    x[0] == u and x[1] == "SUSPEND_QUEUES" and x[3] == b for x in slices):
                fail(f"'suspended' at {b} on {tracks[u][0]!r}: no SUSPEND_QUEUES ends there")
            inner = [x for x in slices if x[0] == u and x[1] == "RESUME_QUEUES"
                     and b <= x[2] and x[3] <= end]
            if inner and not all(x[5] == depth + 1 for x in inner):
                fail(f"RESUME_QUEUES not nested in 'suspended' at {b}")
    names = sorted(n for n, _, _ in tracks.values())
    print(f"ok: {len(pk)} packets, sequence {seq}, {len(tracks)} tracks, "
          f"{len(slices)} slices, {sum(len(v) for v in counters.values())} counter values")
    if golden:
        check_golden(tracks, slices, counters)
    print("tracks: " + ", ".join(names))


def check_golden(tracks, slices, counters):
    B, US = 1000000000000, 1000
    by_name = {}
    for u, (n, parent, _) in tracks.items():
        pn = tracks[parent][0] if parent else ""
        by_name[(pn, n)] = u
    for key in [("", "gpreempt: GPU 51157"), ("", "gpreempt: GPU 60000"),
                ("", "gpreempt: GPU unknown"), ("", "gpreempt: evictions by trigger"),
                ("gpreempt: GPU 51157", "online busy"),
                ("gpreempt: GPU 51157", "suspended: train 4242"),
                ("gpreempt: GPU 51157", "suspended: train2 4343"),
                ("gpreempt: GPU 60000", "suspended: train2 4343"),
                ("gpreempt: GPU unknown", "suspended: pid 7777"),
                ("gpreempt: GPU 60000", "suspended: old 5555"),
                ("gpreempt: GPU 51157", "suspended queues"),
                ("gpreempt: GPU 51157", "evictions")]:
        if key not in by_name:
            fail(f"golden: no track {key}")

    def on(parent, track):
        return [(s[1], s[2], s[3], s[4], s[5]) for s in slices
                if s[0] == by_name[(parent, track)]]
    g = "gpreempt: GPU 51157"
    want = [("SUSPEND_QUEUES", B + 2060 * US, B + 2100 * US, 0),
            ("RESUME_QUEUES", B + 3080 * US, B + 3100 * US, 1),
            ("suspended", B + 2100 * US, B + 3100 * US, 0)]
    got = [(n, b, e, d) for n, b, e, _, d in on(g, "suspended: train 4242")]
    if got != want:
        fail(f"golden: train 4242 on {g}: {got}")
    ann = on(g, "suspended: train 4242")[0][3]
    if (ann.get("queues_asked"), ann.get("queues_done"), ann.get("result"),
            ann.get("caller_comm")) != (2, 2, "2 queues", "gpreempt-ctl"):
        fail(f"golden: suspend annotations {ann}")
    for gg in (g, "gpreempt: GPU 60000"):
        s = [x for x in on(gg, "suspended: train2 4343") if x[0] == "suspended"]
        if [(x[1], x[2]) for x in s] != [(B + 2200 * US, B + 4000 * US)]:
            fail(f"golden: train2 on {gg} suspended {s}: ends at its exit")
    old = [(x[0], x[1], x[2], x[4]) for x in on("gpreempt: GPU 60000", "suspended: old 5555")]
    if old != [("RESUME_QUEUES", B + 3480 * US, B + 3500 * US, 1), ("suspended", B, B + 3500 * US, 0)]:
        fail(f"golden: the seeded, already suspended old 5555: {old}")
    c = counters[by_name[("gpreempt: GPU 60000", "suspended queues")]]
    if c != [(B, 1), (B + 2200 * US, 2), (B + 3500 * US, 1), (B + 4000 * US, 0)]:
        fail(f"golden: GPU 60000's suspended queues {c}")
    bad = on("gpreempt: GPU unknown", "suspended: pid 7777")
    if [(x[0], x[3]["result"]) for x in bad] != [("SUSPEND_QUEUES", "EINVAL")]:
        fail(f"golden: the failed suspend {bad}")
    if [(x[0], x[1], x[2]) for x in on(g, "online busy")] != [
            ("online busy", B + 2000 * US, B + 3000 * US)]:
        fail("golden: online busy")
    ev = on("", "gpreempt: evictions by trigger")
    if [(x[0], x[1], x[2]) for x in ev] != [("evict: ttm", B + 2400 * US, B + 2500 * US)]:
        fail(f"golden: evictions by trigger {ev}")
    if [x[0] for x in on(g, "evictions")] != ["evict queues", "restore queues"]:
        fail("golden: per-GPU evictions")
    c = counters[by_name[(g, "suspended queues")]]
    if c != [(B + 2100 * US, 2), (B + 2200 * US, 3), (B + 3100 * US, 1), (B + 4000 * US, 0)]:
        fail(f"golden: GPU 51157's suspended queues {c}")
    print("golden: tracks, slices, nesting, timestamps and counters as scripted")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--golden"]):
        sys.exit("usage: check_trace.py TRACE [--golden]")
    main(sys.argv[1], len(sys.argv) == 3)
