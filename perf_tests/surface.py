#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The performance surface, read: each cell's share of the copy of its shape,
a heat map of it, and the cells that fell since an earlier run.

    perf_tests/surface.py BENCH_JSON... --out-dir DIR [--commit C] [--compare OLD_SURFACE_JSON]

Each BENCH_JSON is Google Benchmark's JSON of `KokkosRMSNorm_PerfTest
--surface` (medians, or single runs), or of a part of it (a filter), so that
the surface may be timed in several processes. Writes DIR/surface.json (the
run's context: date, machine, copy ceiling, commit; and one record a cell:
entry, dtype, M, N, timing, us, GB/s, % of the faster copy of the shape)
and one heat map a timing and row class, DIR/surface-<timing>-<rows>.svg
(entry point x dtype rows, N columns, colour = % of the copy). With
--compare, names every cell whose time a call grew by more than 3% against
OLD_SURFACE_JSON and exits 1 if there is one. Needs only Python 3.
"""
import argparse
import collections
import json
import os
import re
import sys

NAME = re.compile(r"^(surface(?:_graph)?)/([a-z0-9_]+)/([a-z0-9]+)/M:(\d+)/N:(\d+)")
FALL = 1.03  # a cell "fell" when its time a call grew by more than this


def read_run(path):
    """The run's context and {(timing, entry, dtype, M, N): {"us", "gbps"}}
    from the medians (or the single runs) of a Google Benchmark JSON."""
    with open(path) as f:
        run = json.load(f)
    benchmarks = run["benchmarks"]
    medians = any(b.get("aggregate_name") == "median" for b in benchmarks)
    cells = {}
    for b in benchmarks:
        if medians and b.get("aggregate_name") != "median":
            continue
        if not medians and b.get("run_type") == "aggregate":
            continue
        m = NAME.match(b.get("run_name", b["name"]))
        if not m:
            continue
        timing = "graph" if m.group(1) == "surface_graph" else "stream"
        key = (timing, m.group(2), m.group(3), int(m.group(4)), int(m.group(5)))
        cells[key] = {"us": b["us"], "gbps": b["gbps"]}
    return run["context"], cells


def surface(cells):
    """Records of every cell but the copies, with the % of the copy of the
    same shape: the faster of its two timings, since a copy replayed from a
    CUDA graph may run on the copy engines, slower than a kernel (None where
    no copy was timed)."""
    records = []
    for (timing, entry, dtype, m, n), cell in sorted(cells.items()):
        if entry == "copy":
            continue
        copies = [cells[key]["gbps"] for key in
                  (("stream", "copy", dtype, m, n), ("graph", "copy", dtype, m, n))
                  if key in cells]
        pct = 100 * cell["gbps"] / max(copies) if copies else None
        records.append({"timing": timing, "entry": entry, "dtype": dtype,
                        "M": m, "N": n, "us": cell["us"], "gbps": cell["gbps"],
                        "pct_of_copy": pct})
    return records


def colour(pct):
    """Red below 50% of the copy, through yellow at 75%, to green at 100%."""
    if pct is None:
        return "#dddddd"
    t = max(0.0, min(1.0, (pct - 50) / 50))
    red = 255 if t < 0.5 else int(255 * (1 - t) * 2)
    green = int(255 * t * 2) if t < 0.5 else 200
    return f"#{red:02x}{green:02x}40"


def heat_map(records, title):
    """An SVG table: a row per (entry, dtype), a column per N."""
    rows = sorted({(r["entry"], r["dtype"]) for r in records})
    columns = sorted({r["N"] for r in records})
    value = {(r["entry"], r["dtype"], r["N"]): r["pct_of_copy"] for r in records}
    cell_w, cell_h, left, top = 44, 20, 250, 50
    width, height = left + cell_w * len(columns) + 10, top + cell_h * len(rows) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="10" y="20" font-size="14">{title}</text>']
    for j, n in enumerate(columns):
        out.append(f'<text x="{left + j * cell_w + cell_w / 2}" y="{top - 6}" '
                   f'text-anchor="middle">{n}</text>')
    for i, (entry, dtype) in enumerate(rows):
        y = top + i * cell_h
        out.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">'
                   f'{entry} {dtype}</text>')
        for j, n in enumerate(columns):
            pct = value.get((entry, dtype, n))
            x = left + j * cell_w
            out.append(f'<rect x="{x}" y="{y}" width="{cell_w - 1}" height="{cell_h - 1}" '
                       f'fill="{colour(pct)}"/>')
            if pct is not None:
                out.append(f'<text x="{x + cell_w / 2}" y="{y + 14}" '
                           f'text-anchor="middle">{pct:.0f}</text>')
    out.append(f'<text x="10" y="{height - 10}">colour and figure: % of the copy of '
               'the same shape (the faster of its two timings); columns: N</text>')
    out.append("</svg>")
    return "\n".join(out)


def row_class(m):
    """"large" for the rows that make a call move 256 MB (more than 256),
    else the decode size."""
    return "decode-M%d" % m if m <= 256 else "large"


def compare(records, old_records):
    """The cells whose time a call grew by more than 3%."""
    old = {(r["timing"], r["entry"], r["dtype"], r["M"], r["N"]): r for r in old_records}
    fell = []
    for r in records:
        o = old.get((r["timing"], r["entry"], r["dtype"], r["M"], r["N"]))
        if o and r["us"] > FALL * o["us"]:
            fell.append((r, o))
    return fell


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench_json", nargs="+")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--commit", help="the commit timed, for the record")
    ap.add_argument("--compare", help="an earlier surface.json")
    args = ap.parse_args()
    cells, context = {}, {}
    for path in args.bench_json:
        try:
            context, run_cells = read_run(path)
        except (json.JSONDecodeError, KeyError):
            # A part with no cells (a dtype this Kokkos lacks) or cut short.
            print(f"{path}: no results, skipped", file=sys.stderr)
            continue
        cells.update(run_cells)
    records = surface(cells)
    if not records:
        sys.exit(f"no surface cells in {' '.join(args.bench_json)}")
    os.makedirs(args.out_dir, exist_ok=True)
    context = {key: context.get(key) for key in
               ("date", "host_name", "copy_ceiling_gbps", "kokkos_backend")}
    context["commit"] = args.commit
    with open(os.path.join(args.out_dir, "surface.json"), "w") as f:
        f.write('{"context": %s,\n "cells": [\n' % json.dumps(context))
        f.write(",\n".join(json.dumps(r) for r in records))
        f.write("\n]}\n")
    groups = collections.defaultdict(list)
    for r in records:
        groups[(r["timing"], row_class(r["M"]))].append(r)
    for (timing, rows), group in sorted(groups.items()):
        path = os.path.join(args.out_dir, f"surface-{timing}-{rows}.svg")
        with open(path, "w") as f:
            f.write(heat_map(group, f"{timing}, {rows} rows: % of the copy of the shape"))
    below = [r for r in records if r["pct_of_copy"] is not None and r["M"] > 256
             and r["pct_of_copy"] < 85]
    print(f"{len(records)} cells; {len(below)} of the large ones below 85% of the copy")
    if args.compare:
        with open(args.compare) as f:
            fell = compare(records, json.load(f)["cells"])
        for r, o in fell:
            print(f"fell: {r['timing']} {r['entry']} {r['dtype']} M={r['M']} N={r['N']}: "
                  f"{o['us']:.2f} -> {r['us']:.2f} us ({100 * (r['us'] / o['us'] - 1):+.1f}%)")
        print(f"{len(fell)} cells fell by more than {100 * (FALL - 1):.0f}%")
        sys.exit(1 if fell else 0)


if __name__ == "__main__":
    main()
