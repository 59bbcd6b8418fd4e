#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Decode latency: the C++ harness (KokkosRMSNorm_PerfTest --decode) beside torch.compile
of the same calls, timed alike, in the same call of the machine.

Reads the harness's Google Benchmark JSON (median aggregates). For each (dtype, M, N) it
timed, times torch.compile (dynamic=False: a kernel for each shape, as a serving engine
compiles them) of the float-accumulating RMSNorm and of vLLM's fused_add_rms_norm in
place (residual = x + residual; x = norm(residual)) on the same tensors call after call:
back to back (256 calls between two CUDA events) and under graph replay (64 calls
captured in one CUDA graph, replayed; compare_torch.time_graph). Writes decode.md (also
printed) and decode.json into --out-dir, with the harness's floors: an empty raw CUDA
kernel, an empty Kokkos TeamPolicy of rms_norm's launch shape and a lean hand-written
rms_norm kernel of that shape (column "lean CUDA"); beside each of our
calls, the same call on Views whose type fixes N (column "N static", `_static_n`).
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (make_torch_fns, time_graph)
from compare_quantized import harness_arguments, write_record  # noqa: E402

EPS = 1e-6
ENTRIES = ["rms_norm", "add_rms_norm_in_place"]
STATIC_N = "_static_n"  # the same entry on Views whose type fixes N
MODES = {"decode": "back to back", "decode_graph": "graph replay"}
NAME_RE = re.compile(r"^(decode|decode_graph)/((?:rms_norm|add_rms_norm_in_place)(?:_static_n)?"
                     r"|kokkos_launch_floor|cuda_lean_rms_norm)"
                     r"/(\w+)/M:(\d+)/N:(\d+)")
RAW_RE = re.compile(r"^(decode|decode_graph)/cuda_empty_kernel")
BACK_TO_BACK_CALLS, SAMPLES = 256, 20


def parse(path):
    """{(mode, impl, dtype, M, N): µs} and {mode: raw empty kernel µs} from the harness."""
    with open(path) as f:
        data = json.load(f)
    rows, raw = {}, {}
    for b in data["benchmarks"]:
        if not (b.get("aggregate_name") == "median" or b.get("run_type") == "iteration"):
            continue
        match, empty = NAME_RE.match(b["name"]), RAW_RE.match(b["name"])
        if match:
            mode, impl, dtype, m, n = match.groups()
            rows[(mode, impl, dtype, int(m), int(n))] = b["us"]
        elif empty:
            raw[empty.group(1)] = b["us"]
    return data["context"], rows, raw


def time_back_to_back(call):
    """Median µs a call of `calls` made back to back from Python between two events."""
    import torch
    for _ in range(3):
        call()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(SAMPLES):
        start.record()
        for _ in range(BACK_TO_BACK_CALLS):
            call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / BACK_TO_BACK_CALLS)
    return statistics.median(times)


def time_torch(shapes):
    import torch
    norm = compare_torch.make_torch_fns(EPS, dynamic=False)["torch_compile"]

    def add_in_place(x, residual, w):
        h = (x.float() + residual.float()).to(x.dtype)
        residual.copy_(h)
        hf = h.float()
        x.copy_((hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + EPS) * w.float())
                .to(x.dtype))

    compiled_add = torch.compile(add_in_place, dynamic=False)
    results = {}
    for dtype, m, n in shapes:
        torch.manual_seed(1234)
        tdtype = getattr(torch, dtype)
        x = torch.randn(m, n, dtype=tdtype, device="cuda")
        residual = torch.randn(m, n, dtype=tdtype, device="cuda")
        w = torch.randn(n, dtype=tdtype, device="cuda")
        calls = {"rms_norm": lambda: norm(x, w),
                 "add_rms_norm_in_place": lambda: compiled_add(x, residual, w)}
        for entry, call in calls.items():
            try:
                results[("decode", entry, dtype, m, n)] = time_back_to_back(call)
                results[("decode_graph", entry, dtype, m, n)] = compare_torch.time_graph(
                    [call] * compare_torch.GRAPH_CALLS)
            except Exception as e:  # one failing formula must not lose the run
                print(f"WARNING: torch {entry} {dtype} {m}x{n}: {type(e).__name__}: {e}",
                      file=sys.stderr)
                continue
            print(f"torch.compile {entry} {dtype} {m}x{n}: "
                  f"{results[('decode', entry, dtype, m, n)]:.2f} us back to back, "
                  f"{results[('decode_graph', entry, dtype, m, n)]:.2f} us in a graph",
                  file=sys.stderr)
        del x, residual, w
    return results


def fmt(us):
    return f"{us:.2f}" if us is not None else "–"


def main():
    parser = harness_arguments()
    args = parser.parse_args()
    context, rows, raw = parse(args.bench_json)
    shapes = sorted({(d, m, n) for (_, i, d, m, n) in rows if i in ENTRIES},
                    key=lambda s: (s[0], s[2], s[1]))
    torch_us = {} if args.no_torch else time_torch(shapes)
    table = []
    cells = []
    for mode, title in MODES.items():
        table += [f"\n{title} (µs a call; empty raw CUDA kernel {fmt(raw.get(mode))})\n",
                  "| dtype | M x N | Kokkos launch floor | lean CUDA | rms_norm | N static | "
                  "torch.compile | add_rms_norm in place | N static | torch.compile |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for dtype, m, n in shapes:
            floor = rows.get((mode, "kokkos_launch_floor", dtype, m, n))
            lean = rows.get((mode, "cuda_lean_rms_norm", dtype, m, n))
            line = f"| {dtype} | {m} x {n} | {fmt(floor)} | {fmt(lean)} |"
            for entry in ENTRIES:
                ours = rows.get((mode, entry, dtype, m, n))
                static_n = rows.get((mode, entry + STATIC_N, dtype, m, n))
                theirs = torch_us.get((mode, entry, dtype, m, n))
                line += f" {fmt(ours)} | {fmt(static_n)} | {fmt(theirs)} |"
                cells.append({"mode": mode, "entry": entry, "dtype": dtype, "rows": m,
                              "n": n, "us": ours, "static_n_us": static_n,
                              "torch_compile_us": theirs,
                              "kokkos_launch_floor_us": floor,
                              "cuda_lean_rms_norm_us": lean,
                              "cuda_empty_kernel_us": raw.get(mode)})
            table.append(line)
    write_record(args.out_dir, "decode", table, cells, context, args.commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
