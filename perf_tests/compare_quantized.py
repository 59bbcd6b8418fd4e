#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The quantized outputs of the C++ harness (KokkosRMSNorm_PerfTest --quantized) beside
torch.compile of the same formulas on the same shapes, and beside a copy of the same bytes.

Reads the harness's Google Benchmark JSON (median aggregates), times torch.compile
(dynamic=False, specialised per shape) of each formula on each (dtype, M, N) the harness
timed, as compare_torch.py times its rotating graphs (back to back over copies of x moving
>= 1 GiB a sweep, one sweep a CUDA graph, median of the sweeps), and writes
quantized.md (also printed) and quantized.json into --out-dir.

  fp8_static:      q = fp8_e4m3fn(clamp(y / 0.01, +-448)), y the RMSNorm in float
  fp8_per_row:     s = max(amax|y| / 448, 1/(448*512)) a row; q = fp8(clamp(y / s))
  int8_per_row:    s = max(amax|y| / 127, ...); q = int8(clamp(round(y / s), +-127))
  add_fp8_per_row: h = x + r (x's dtype); y = RMSNorm(h); fp8_per_row of y; returns h

"% copy" is the copy of the same bytes (copy_norm_bytes, copy_add_bytes) timed by the
harness in the same process, over the call's time.
"""
import argparse
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (time_rotating, the dtype names)

IMPLS = ["fp8_static", "fp8_per_row", "int8_per_row", "add_fp8_per_row"]
COPY_OF = {"fp8_static": "copy_norm_bytes", "fp8_per_row": "copy_norm_bytes",
           "int8_per_row": "copy_norm_bytes", "add_fp8_per_row": "copy_add_bytes"}
NAME_RE = re.compile(r"^(\w+)/(float32|bfloat16|float16)/M:(\d+)/N:(\d+)/manual_time(_median)?$")
EPS = 1e-6
MINIMUM = 1.0 / (448 * 512)


def harness_arguments():
    """The arguments every comparison with the harness takes: its JSON, where to write
    the record, the commit it was built at, and whether to leave torch out."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_json")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--no-torch", action="store_true")
    return parser


def write_record(out_dir, name, table, cells, context, commit, **more_context):
    """Writes <name>.md (the table, also printed) and <name>.json (the cells, with the
    date, commit, host and copy ceiling of the harness's run) into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    meta = {"date": datetime.date.today().isoformat(), "commit": commit,
            "host": context.get("host_name"),
            "copy_ceiling_gbps": context.get("copy_ceiling_gbps"), **more_context}
    with open(os.path.join(out_dir, name + ".md"), "w") as f:
        f.write("\n".join(table) + "\n")
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump({"context": meta, "cells": cells}, f, indent=1)
    print("\n".join(table))


def parse(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        match = NAME_RE.match(b["name"])
        if match and (b.get("aggregate_name") == "median"
                      or b.get("run_type") == "iteration"):
            impl, dtype, m, n = match.groups()[:4]
            rows[(impl, dtype, int(m), int(n))] = b["us"]
    return data["context"], rows


def torch_formulas():
    import torch

    def norm(x, w):
        xf = x.float()
        return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()

    def per_row(y, largest):
        scale = (y.abs().amax(-1, keepdim=True) / largest).clamp(min=MINIMUM)
        return y / scale, scale

    def fp8_static(x, w):
        return (norm(x, w) / 0.01).clamp(-448, 448).to(torch.float8_e4m3fn)

    def fp8_per_row(x, w):
        v, scale = per_row(norm(x, w), 448)
        return v.clamp(-448, 448).to(torch.float8_e4m3fn), scale

    def int8_per_row(x, w):
        v, scale = per_row(norm(x, w), 127)
        return v.round().clamp(-127, 127).to(torch.int8), scale

    def add_fp8_per_row(x, r, w):
        h = x + r
        v, scale = per_row(norm(h, w), 448)
        return v.clamp(-448, 448).to(torch.float8_e4m3fn), scale, h

    return {name: torch.compile(f, dynamic=False) for name, f in
            [("fp8_static", fp8_static), ("fp8_per_row", fp8_per_row),
             ("int8_per_row", int8_per_row), ("add_fp8_per_row", add_fp8_per_row)]}


def time_torch(shapes):
    import functools
    import torch
    import torch._dynamo
    for key in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, key):
            setattr(torch._dynamo.config, key, 1024)
    fns = torch_formulas()
    results = {}
    for dtype, m, n in shapes:
        torch.manual_seed(1234)
        x = torch.randn(m, n, dtype=getattr(torch, dtype), device="cuda")
        w = torch.randn(n, dtype=x.dtype, device="cuda")
        r = torch.randn_like(x)
        for impl, fn in fns.items():
            if impl.startswith("add"):
                call = functools.partial(lambda x_c, w_c, fn: fn(x_c, r, w_c), fn=fn)
                nbytes = m * n * (3 * x.element_size() + 1)
            else:
                call, nbytes = fn, m * n * (x.element_size() + 1)
            try:
                us = compare_torch.time_rotating(call, x, w, nbytes)
            except Exception as e:  # one failing formula must not lose the run
                print(f"WARNING: torch {impl} {dtype} {m}x{n}: {type(e).__name__}: {e}",
                      file=sys.stderr)
                continue
            results[(impl, dtype, m, n)] = us
            print(f"torch.compile {impl} {dtype} {m}x{n}: {us:.1f} us", file=sys.stderr)
        del x, w, r
        torch.cuda.empty_cache()
    return results


def main():
    parser = harness_arguments()
    parser.add_argument("--torch-dtypes", default="bfloat16",
                        help="the dtypes torch.compile is timed on (each shape compiles "
                        "four kernels)")
    args = parser.parse_args()
    context, rows = parse(args.bench_json)
    shapes = sorted({(d, m, n) for (i, d, m, n) in rows if i in IMPLS})
    torch_shapes = [s for s in shapes if s[0] in args.torch_dtypes.split(",")]
    torch_us = {} if args.no_torch else time_torch(torch_shapes)
    table = ["| dtype | M x N | output | ours µs | % of copy of its bytes "
             "| torch.compile µs | ours / torch.compile |",
             "|---|---|---|---:|---:|---:|---:|"]
    cells = []
    for dtype, m, n in shapes:
        for impl in IMPLS:
            ours = rows.get((impl, dtype, m, n))
            copy = rows.get((COPY_OF[impl], dtype, m, n))
            torch_time = torch_us.get((impl, dtype, m, n))
            if ours is None:
                continue
            pct = 100 * copy / ours if copy else None
            ratio = ours / torch_time if torch_time else None
            cells.append({"impl": impl, "dtype": dtype, "M": m, "N": n, "us": ours,
                          "copy_us": copy, "pct_of_copy": pct,
                          "torch_compile_us": torch_time})
            table.append(f"| {dtype} | {m} x {n} | {impl} | {ours:.1f} | "
                         + (f"{pct:.0f}" if pct else "–") + " | "
                         + (f"{torch_time:.1f}" if torch_time else "–") + " | "
                         + (f"{ratio:.2f}" if ratio else "–") + " |")
    write_record(args.out_dir, "quantized", table, cells, context, args.commit)
    worst = [c for c in cells if c["pct_of_copy"] is not None and c["pct_of_copy"] < 90]
    print(f"{len(worst)} of {len(cells)} cells below 90% of the copy of their bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
