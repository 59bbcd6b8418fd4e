#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare the host harness (KokkosRMSNorm_PerfTest_Host) with PyTorch on the CPU.

Reads the Google Benchmark JSON of the host harness (medians), times PyTorch on the
CPU on every (dtype, M, N) it timed for `kokkosrmsnorm`, in the same process layout
and the same way, and writes `host.md` (also printed), `host.json` and `host.png`
into --out-dir.

  * torch_eager:   torch.nn.functional.rms_norm(x, (N,), w, eps).
  * torch_compile: torch.compile(dynamic=False) of the textbook RMSNorm with float32
                   accumulation, returning x's dtype.
  * Both back to back over rotating copies of x moving >= 1 GiB a sweep (as the C++
    harness), torch.set_num_threads(--threads); per-call time = the median of 10 sweeps
    over the copies. x ~ randn(M, N), w ~ randn(N), seeded per shape.
  * Bytes per call = (2*M*N + N) * itemsize; "% copy" = 100 * GB/s / the C++ harness's
    copy of the same shape (`copy`, a parallel copy of x into y on the host backend,
    timed in the same process as kokkosrmsnorm).
  * "one output": ours writing every call into one y, as PyTorch's calls do here (its
    allocator gives each call's output the block the last call freed, which the caches
    keep); "timed alike" compares that with the faster PyTorch path.
  * Several --bench-json (runs of one binary on one machine): each shape's times and
    its % of the copy (each run's against its own copy) are the medians over the runs,
    since on a host the copy of a shape moves by up to 20% from run to run
    (docs/perf/LOG.md, log 70).
"""
import argparse
import datetime
import json
import os
import re
import statistics
import time

from compare_torch import DTYPES, parse_bench_json, shape_bytes

SWEEP_BYTES, SAMPLES = 2**30, 10


def time_rotating(fn, xs, w):
    fn(xs[0], w)  # warm-up (and compilation)
    sweeps = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        for x in xs:
            fn(x, w)
        sweeps.append((time.perf_counter() - start) / len(xs))
    return statistics.median(sweeps) * 1e6


def time_torch(shapes, eps, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)

    def textbook(x, w):
        h = x.float()
        return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)

    torch._dynamo.config.recompile_limit = 64  # a kernel for each shape and dtype
    fns = {"torch_eager": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, eps),
           "torch_compile": torch.compile(textbook, dynamic=False)}
    out = {}
    for dtype, M, N in shapes:
        tdtype = getattr(torch, dtype)
        nbytes = shape_bytes(dtype, M, N)
        copies = max(4, min(256, -(-SWEEP_BYTES // nbytes)))
        gen = torch.Generator().manual_seed(M * 100003 + N)
        xs = [torch.randn(M, N, generator=gen).to(tdtype) for _ in range(copies)]
        w = torch.randn(N, generator=gen).to(tdtype)
        for name, fn in fns.items():
            with torch.no_grad():
                us = time_rotating(fn, xs, w)
            out[(name, dtype, M, N)] = {"us": us, "gbps": nbytes / (us * 1e-6) / 1e9}
            print(f"{name} {dtype} {M} x {N}: {us:.1f} us", flush=True)
        del xs
    return out


def median_over_runs(paths):
    """The context of the first run, and each (impl, dtype, M, N)'s per-call time, GB/s
    and % of the copy of its shape (each run's ours against its own copy) as medians
    over the runs that timed it."""
    runs = [parse_bench_json(path)[1] for path in paths]
    cpp = {}
    for key in runs[0]:
        copy_key = ("copy",) + key[1:]
        timed = [run for run in runs if key in run]
        pcts = [100 * run[key]["gbps"] / run[copy_key]["gbps"]
                for run in timed if run.get(copy_key, {}).get("gbps")]
        cpp[key] = {"us": statistics.median(run[key]["us"] for run in timed),
                    "gbps": statistics.median(run[key]["gbps"] for run in timed),
                    "pct": statistics.median(pcts) if pcts else float("nan")}
    return parse_bench_json(paths[0])[0], cpp


def read_torch_log(path):
    """The PyTorch times an earlier run of this script printed, to finish a record
    whose run was cut short after timing PyTorch (lines "impl dtype M x N: us us")."""
    out = {}
    for line in open(path):
        m = re.match(r"^(torch_\w+)\s+(\w+)\s+(\d+) x\s+(\d+):\s+([\d.]+) us", line)
        if m:
            name, dtype, M, N, us = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5))
            out[(name, dtype, M, N)] = {"us": us, "gbps": shape_bytes(dtype, M, N) / (us * 1e-6) / 1e9}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-json", required=True, nargs="+")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--machine", default="")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--torch-log", help="take PyTorch's times from an earlier run's output")
    args = ap.parse_args()

    ctx, cpp = median_over_runs(args.bench_json)
    shapes = sorted({(d, M, N) for (impl, d, M, N) in cpp if impl == "kokkosrmsnorm"},
                    key=lambda s: (DTYPES.index(s[0]), s[1] * s[2], s[2]))
    if args.torch_log:
        torch_rows = read_torch_log(args.torch_log)
    else:
        torch_rows = {} if args.no_torch else time_torch(shapes, args.eps, args.threads)

    records, lines = [], []
    lines.append(f"Host record: {args.machine}, {ctx.get('kokkos_backend', '?')}, "
                 f"{args.threads} threads, commit {args.commit}, "
                 f"medians of {len(args.bench_json)} run(s), "
                 f"{args.date}; copy ceiling "
                 f"{float(ctx.get('copy_ceiling_gbps', 0)):.1f} GB/s\n")
    lines.append("| dtype | M x N | ours us | ours GB/s | % of copy | copy GB/s "
                 "| eager us | compile us | ours vs best torch "
                 "| ours, one output us | vs best torch, timed alike |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for dtype, M, N in shapes:
        ours = cpp[("kokkosrmsnorm", dtype, M, N)]
        copy = cpp.get(("copy", dtype, M, N), {})
        eager = torch_rows.get(("torch_eager", dtype, M, N), {})
        comp = torch_rows.get(("torch_compile", dtype, M, N), {})
        one_output = cpp.get(("one_output", dtype, M, N), {}).get("us", float("nan"))
        best = min([r["us"] for r in (eager, comp) if r] or [float("nan")])
        pct = ours["pct"]
        records.append({"dtype": dtype, "M": M, "N": N, "us": ours["us"],
                        "gbps": ours["gbps"], "pct_of_copy": pct,
                        "copy_gbps": copy.get("gbps"), "one_output_us": one_output,
                        "torch_eager_us": eager.get("us"),
                        "torch_compile_us": comp.get("us")})
        lines.append(f"| {dtype} | {M} x {N} | {ours['us']:.1f} | {ours['gbps']:.1f} | "
                     f"{pct:.0f}% | {copy.get('gbps', float('nan')):.1f} | "
                     f"{eager.get('us', float('nan')):.1f} | {comp.get('us', float('nan')):.1f} | "
                     f"{best / ours['us']:.2f}x | {one_output:.1f} | "
                     f"{best / one_output:.2f}x |")
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "host.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out_dir, "host.json"), "w") as f:
        json.dump({"date": args.date, "commit": args.commit,
                   "machine": args.machine, "threads": args.threads,
                   "runs": len(args.bench_json), "context": ctx,
                   "records": records}, f, indent=1)
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(10, 4))
        short = {"float32": "f32", "bfloat16": "bf16", "float16": "f16", "float64": "f64"}
        labels = [f"{short[r['dtype']]} {r['M']}x{r['N']}" for r in records]
        xs = range(len(records))
        def best_torch_pct(r):
            times = [u for u in (r["torch_eager_us"], r["torch_compile_us"]) if u]
            if not times or not r["copy_gbps"]:
                return 0
            gbps = shape_bytes(r["dtype"], r["M"], r["N"]) / (min(times) * 1e3)
            return 100 * gbps / r["copy_gbps"]

        ax.bar([x - 0.2 for x in xs], [r["pct_of_copy"] for r in records], 0.4, label="ours")
        ax.bar([x + 0.2 for x in xs], [best_torch_pct(r) for r in records], 0.4,
               label="best PyTorch CPU")
        ax.set_xticks(list(xs), labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("% of the host copy of the shape")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.out_dir, "host.png"), dpi=100)
    except ImportError:
        pass


if __name__ == "__main__":
    main()
