#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check PromQL expressions' gpreempt metric names and labels against
scrapes: every gpreempt_* name must be a family (or a histogram's
_bucket/_sum/_count) of a scrape, and every label an expression matches
on or groups by must be on that family's samples, or be a label the
scraper adds (instance, job) or the histogram's le.

  promql_names.py SCRAPE... < EXPRS     (one expression a line)

Prints each fault and exits 1 if any; with no fault prints the names
checked, one a line. Names not starting gpreempt_ (up, kube_pod_info)
are other exporters' or Prometheus's own and are not checked.
"""
import re
import sys

TARGET = {"instance", "job"}
fam_type = {}
fam_labels = {}

for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            m = re.match(r"# TYPE (\S+) (\S+)", line)
            if m:
                fam_type[m.group(1)] = m.group(2)
                fam_labels.setdefault(m.group(1), set())
                continue
            if line.startswith("#") or not line.strip():
                continue
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?", line)
            name = m.group(1)
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            fam = name if name in fam_type else base
            labs = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or ""))
            fam_labels.setdefault(fam, set()).update(labs)


def family(name):
    if name in fam_type:
        return name
    base = re.sub(r"_(bucket|sum|count)$", "", name)
    if base != name and fam_type.get(base) == "histogram":
        return base
    return None


faults, checked = [], set()
for expr in sys.stdin:
    expr = expr.strip()
    if not expr:
        continue
    fams = []
    for m in re.finditer(r"\b(gpreempt_[a-z0-9_]+)\s*(\{([^}]*)\})?", expr):
        name, matchers = m.group(1), m.group(3)
        fam = family(name)
        if fam is None:
            faults.append(f"{name}: no such family in the scrape ({expr})")
            continue
        fams.append(fam)
        checked.add(name)
        allowed = fam_labels[fam] | TARGET
        if fam_type.get(fam) == "histogram":
            allowed = allowed | {"le"}
        for lab in re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers or ""):
            if lab not in allowed:
                faults.append(f"{name}: no label {lab} on its samples ({expr})")
    if not fams:
        continue
    grouped = set()
    for m in re.finditer(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
        grouped |= {x.strip() for x in m.group(1).split(",") if x.strip()}
    m = re.match(r"label_values\(\s*[^,]+,\s*([a-zA-Z_]+)\s*\)", expr)
    if m:
        grouped.add(m.group(1))
    have = set(TARGET) | {"le"}
    for fam in fams:
        have |= fam_labels[fam]
    for lab in sorted(grouped - have):
        faults.append(f"by/label {lab}: on none of {sorted(set(fams))} ({expr})")

for f in faults:
    print(f)
if faults:
    sys.exit(1)
for n in sorted(checked):
    print(n)
