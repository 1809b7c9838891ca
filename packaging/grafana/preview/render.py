#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A static picture of the Grafana dashboard's panels from one recorded
scrape, for docs/ (Grafana itself is not a Debian package).

  render.py DASHBOARD.json SCRAPE.prom OUT.png

Each panel is drawn where the dashboard puts it (gridPos), under its
title, from the gpreempt_* families its queries name: a heatmap panel as
the histogram's per-bucket counts (a one-scrape column of the heatmap),
any other as the families' current samples. One scrape has no time
axis: rates and shares over time are what Grafana shows; this shows
what they are computed from. The PNG records the SHA-256 of the
dashboard it was drawn from (tests/bats/dashboard.bats compares it).
Needs python3-matplotlib (Debian).
"""
import hashlib
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def parse(path):
    """{family: (type, [(name, labels dict, value)])}, first family wins."""
    fams, cur, skip = {}, None, False
    for line in open(path):
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            cur = m.group(1)
            skip = cur in fams
            if not skip:
                fams[cur] = (m.group(2), [])
            continue
        if line.startswith("#") or not line.strip() or skip or cur is None:
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        labels = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        fams[cur][1].append((m.group(1), labels, float(m.group(3))))
    return fams


def families(panel, fams):
    out = []
    for t in panel.get("targets", []):
        for n in re.findall(r"\b(gpreempt_[a-z0-9_]+)", t.get("expr", "")):
            n = re.sub(r"_bucket$", "", n)
            if n in fams and n not in out:
                out.append(n)
    return out


def draw_hist(ax, fams, names):
    for n in names[:1]:
        typ, samples = fams[n]
        # the first series of the family (a heatmap panel sums by le)
        key = None
        buckets = []
        for s, l, v in samples:
            if not s.endswith("_bucket"):
                continue
            k = tuple(sorted((a, b) for a, b in l.items() if a != "le"))
            key = k if key is None else key
            if k == key and l["le"] != "+Inf":
                buckets.append((float(l["le"]), v))
        prev, xs, ys = 0, [], []
        for le, v in sorted(buckets):
            xs.append(le)
            ys.append(v - prev)
            prev = v
        ax.bar(range(len(xs)), ys, color="#e8743b")
        ticks = list(range(0, len(xs), max(1, len(xs) // 6)))
        ax.set_xticks(ticks)
        ax.set_xticklabels(["%.0e" % xs[i] for i in ticks], fontsize=6)
        ax.set_xlabel("bucket upper bound (s)", fontsize=6)
        ax.set_ylabel("count", fontsize=6)


def draw_values(ax, fams, names):
    rows = []
    for n in names:
        typ, samples = fams[n]
        for s, l, v in samples:
            if s.endswith(("_bucket", "_sum", "_count")):
                continue
            lab = ",".join(f"{k}={x}" for k, x in l.items() if k != "comm")
            rows.append((f"{s.replace('gpreempt_', '')}{{{lab}}}" if lab
                         else s.replace("gpreempt_", ""), v))
    # non-zero first: what a panel would show as lines off the floor
    rows = sorted(rows, key=lambda r: r[1] == 0)[:8]
    if not rows:
        ax.text(0.5, 0.5, "no samples in the recording", ha="center",
                va="center", fontsize=7, transform=ax.transAxes)
        ax.set_axis_off()
        return
    ax.barh(range(len(rows)), [v for _, v in rows], color="#b7dbab")
    ax.set_yticks([])
    ax.invert_yaxis()
    # series names inside the panel (a neighbour would hide them outside)
    for i, (r, v) in enumerate(rows):
        ax.text(0, i, " %s = %g" % (r, v), va="center", fontsize=6,
                transform=ax.get_yaxis_transform())


def main(dash_path, scrape_path, out):
    raw = open(dash_path, "rb").read()
    dash = json.loads(raw)
    fams = parse(scrape_path)
    height = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in dash["panels"])
    fig = plt.figure(figsize=(16, height * 0.33))
    fig.patch.set_facecolor("#f4f5f5")
    for p in dash["panels"]:
        g = p["gridPos"]
        box = [g["x"] / 24 + 0.006, 1 - (g["y"] + g["h"]) / height + 0.012,
               g["w"] / 24 - 0.012, g["h"] / height - 0.03]
        if p["type"] == "row":
            fig.text(box[0], box[1] + box[3] / 2, p["title"], fontsize=11,
                     weight="bold")
            continue
        ax = fig.add_axes(box)
        ax.set_title(p["title"], fontsize=8, loc="left")
        ax.tick_params(labelsize=6)
        names = families(p, fams)
        if p["type"] == "heatmap" and names:
            draw_hist(ax, fams, names)
        else:
            draw_values(ax, fams, names)
    fig.suptitle(f"{dash['title']}: panels of {dash_path.split('/')[-1]} from "
                 "one recorded scrape (values, not time series)", fontsize=12,
                 y=1 + 0.6 / height)
    fig.savefig(out, dpi=80, bbox_inches="tight", metadata={
        "Description": "sha256:" + hashlib.sha256(raw).hexdigest()})


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: render.py DASHBOARD.json SCRAPE.prom OUT.png")
    main(*sys.argv[1:])
