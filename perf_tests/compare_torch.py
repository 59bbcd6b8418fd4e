#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare the C++ Kokkos RMSNorm benchmark results with PyTorch on the same shapes.

Reads the Google Benchmark JSON written by the C++ harness (median aggregates only),
times PyTorch on every (dtype, M, N) that the harness timed for `kokkosrmsnorm`, and
writes a markdown table (`comparison.md`, also printed), a plot (`bandwidth.png`) and
a results file (`h200.json`) into --out-dir.

What is timed, and how:
  * torch_eager:   torch.nn.functional.rms_norm(x, (N,), w, eps).
  * torch_compile: torch.compile(dynamic=False) of the textbook RMSNorm with float32
                   accumulation, returning x's dtype (specialised per dtype and shape);
                   with --dynamic, dynamic=True: one kernel for sizes known only at run
                   time, as a library's (the add below likewise).
  * x ~ randn(M, N), w ~ randn(N) in the dtype on cuda, seeded per shape.
  * Bytes per call = (2*M*N + N) * itemsize (read x and w, write y); GB/s = bytes/s/1e9,
    and "% copy" = 100 * GB/s / the C++ harness's device-to-device copy ceiling
    (counting bytes read + written), taken from the JSON context.
  * Shapes with 2*M*N*itemsize < 64 MiB fit in the H200's L2: they are timed by
    replaying a CUDA graph holding 64 calls (captured after a side-stream warm-up),
    20 replays per sample timed with CUDA events, median over 20 samples
    (method "graph": PyTorch's best case, L2-warm and without Python/launch overhead).
    Larger shapes use triton.testing.do_bench (flushes L2 between calls), median
    (method "do_bench"). do_bench times a call alone, Python's dispatch included for
    short kernels, and stops its clock when the kernel ends (the output left dirty in L2
    is written back during the next flush, untimed). So the large shapes are also timed
    alike for torch.compile and for the C++ harness's kokkosrmsnorm and copy (impls
    *_rotating_graph, method "rotating_graph"): back to back over rotating copies of x
    moving >= 1 GiB a sweep, one sweep captured as a CUDA graph and replayed (no launch
    gaps); median of 10 sweeps here, of the harness's repetitions there.
  * A PyTorch copy ceiling (dst.copy_(src) of 2 GiB, bytes = 2 * 2 GiB, do_bench
    median) is printed for reference only.
  * Fused residual add and backward, on the shapes the harness timed them:
      torch_compile_add: torch.compile of h = x + r; y = textbook RMSNorm of h, returning
                         (y, h); bytes = (4*M*N + N) * itemsize, as for add_rms_norm.
      torch_backward:    torch.autograd.grad of F.rms_norm for (x, w) given dy, the forward
                         graph kept; bytes = (3*M*N + N) * itemsize (read dy and x, write
                         dx), as for rms_norm_backward. Both timed by do_bench.
C++ rows use the harness's own `us`, `gbps` and `pct_of_copy` counters.
--no-torch skips all PyTorch work (torch columns empty), e.g. to test on a machine without a GPU.
"""
import argparse
import datetime
import functools
import json
import os
import re
import statistics
import subprocess
import sys

DTYPES = ["float32", "bfloat16", "float16", "float64"]
ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}
CPP_IMPLS = ["kokkosrmsnorm", "kokkos_kernels"]
TABLE_IMPLS = CPP_IMPLS + ["torch_eager", "torch_compile"]
# Timed alike on the large shapes: one sweep over rotating buffers a CUDA graph.
ROTATING_GRAPH_IMPLS = ["kokkosrmsnorm_rotating_graph", "copy_rotating_graph",
                        "torch_compile_rotating_graph"]
COLORS = dict(zip(TABLE_IMPLS, ["tab:blue", "tab:orange", "tab:green", "tab:red"]))
# The fused residual add and the backward pass: C++ impl -> (torch counterpart, matrices moved).
FEATURES = {"add_rms_norm": ("torch_compile_add", 4), "rms_norm_backward": ("torch_backward", 3)}
FEATURE_IMPLS = [name for impl, (torch_impl, _) in FEATURES.items() for name in (impl, torch_impl)]
# without_workspace: rms_norm without a Workspace, timed where that changes the kernel;
# copy: deep_copy of the shape's x into y, the bandwidth a copy reaches at that size.
NAME_RE = re.compile(r"^(kokkosrmsnorm|without_workspace|one_output|kokkos_kernels|launch_floor|copy|"
                     + "|".join(FEATURES)
                     + r")/(" + "|".join(DTYPES)
                     + r")/M:(\d+)/N:(\d+)(/.*)?$")
# The C++ graph_rotating/<impl>/... benchmarks, read as <impl>_rotating_graph.
ROTATING_GRAPH_RE = re.compile(r"^graph_rotating/(kokkosrmsnorm|copy)/(" + "|".join(DTYPES)
                               + r")/M:(\d+)/N:(\d+)(/.*)?$")
TIME_UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
SMALL_BYTES = 64 * 2**20       # 2*M*N*itemsize below this: L2-resident, graph replay
GRAPH_CALLS, GRAPH_REPLAYS, GRAPH_SAMPLES = 64, 20, 20
SWEEP_BYTES, ROTATING_SAMPLES = 2**30, 10  # as the C++ harness's rotation
LARGE_ELEMS = 2**22            # plot only shapes with M*N >= this


def log(msg):
    print(msg, flush=True)


def shape_bytes(dtype, m, n, matrices=2):
    return (matrices * m * n + n) * ITEMSIZE[dtype]


# ----------------------------------------------------------------------------- input
def parse_bench_json(path):
    """Return (context, cpp_rows, other) where cpp_rows maps (impl, dtype, M, N) to a
    dict(us, gbps, pct, cached) and other is a list of (run_name, us)."""
    with open(path) as f:
        data = json.load(f)
    ctx = data.get("context", {})
    benches = data.get("benchmarks", [])
    has_aggregates = any(b.get("run_type") == "aggregate" for b in benches)
    cpp_rows, other = {}, []
    for b in benches:
        if has_aggregates and (b.get("run_type") != "aggregate"
                               or b.get("aggregate_name") != "median"):
            continue
        name = b.get("run_name", b.get("name", ""))
        us = b.get("us")
        if us is None and "real_time" in b:
            us = b["real_time"] * TIME_UNIT_US.get(b.get("time_unit", "ns"), 1e-3)
        m = NAME_RE.match(name)
        rotating = ROTATING_GRAPH_RE.match(name)
        if not (m or rotating):
            other.append((name, us))
            continue
        m = m or rotating
        impl, dtype, M, N = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        if rotating:
            impl += "_rotating_graph"
        gbps = b.get("gbps")
        if gbps is None and us:
            gbps = shape_bytes(dtype, M, N, FEATURES.get(impl, (None, 2))[1]) / (us * 1e-6) / 1e9
        cpp_rows[(impl, dtype, M, N)] = {"us": us, "gbps": gbps, "pct": b.get("pct_of_copy"),
                                         "cached": float(b.get("cached", 0.0)) == 1.0}
    return ctx, cpp_rows, other


# ----------------------------------------------------------------------------- torch
def time_graph(calls, replays=GRAPH_REPLAYS, samples=GRAPH_SAMPLES):
    """Median per-call µs of the callables `calls` captured in order into one CUDA graph
    and replayed `replays` times per sample (launch overhead amortized as in an
    application capturing its whole step)."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            calls[0]()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = [call() for call in calls]  # kept alive while the graph exists
    for _ in range(10):
        graph.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / (replays * len(calls)))
    del graph, out
    return statistics.median(times)


def time_rotating(fn, x, w, nbytes):
    """Median per-call µs of fn(x_c, w) timed as the C++ harness times its calls: back to
    back over enough copies x_c of x that a sweep moves at least 1 GiB (4 to 256 copies),
    so that every call reads from memory and its writes are evicted by the next calls,
    within the timed sweep; here one sweep is a CUDA graph, replayed (no launch gaps)."""
    copies = min(256, max(4, -(-SWEEP_BYTES // nbytes)))
    xs = [x.clone() for _ in range(copies)]
    us = time_graph([functools.partial(fn, x_c, w) for x_c in xs], replays=1,
                    samples=ROTATING_SAMPLES)
    del xs
    return us


def time_do_bench(fn):
    """Median µs of fn from triton's do_bench (L2 flushed between calls)."""
    from triton.testing import do_bench
    return do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3


def torch_copy_ceiling_gbps():
    import torch
    nbytes = 2 * 2**30
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    us = time_do_bench(functools.partial(dst.copy_, src))
    del src, dst
    torch.cuda.empty_cache()
    return 2 * nbytes / (us * 1e-6) / 1e9


def make_torch_fns(eps, dynamic):
    import torch
    import torch._dynamo
    import torch.nn.functional as F
    # One specialisation per (dtype, shape): raise the recompile limits (renamed across versions).
    for key in ("cache_size_limit", "recompile_limit",
                "accumulated_cache_size_limit", "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, key):
            setattr(torch._dynamo.config, key, 1024)

    def textbook(x, w):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        return (y * w.float()).to(x.dtype)

    compiled = torch.compile(textbook, dynamic=dynamic)  # if not, guards specialise per shape
    return {"torch_eager": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, eps=eps),
            "torch_compile": compiled}


def check_and_time(fn, x, w, ref, small):
    """Relative Frobenius error of fn(x, w) against ref, and its median µs per call."""
    y = fn(x, w)
    err = ((y.double() - ref).norm() / ref.norm()).item()
    del y
    call = functools.partial(fn, x, w)
    return err, (time_graph([call] * GRAPH_CALLS) if small else time_do_bench(call))


def time_torch_shapes(shapes, eps, dynamic):
    """Time each torch impl on each (dtype, M, N). Returns {(impl, dtype, M, N): dict}."""
    import torch
    fns = make_torch_fns(eps, dynamic)
    results = {}
    for i, (dtype, M, N) in enumerate(shapes, 1):
        torch.manual_seed(1234)
        tdtype = getattr(torch, dtype)
        x = torch.randn(M, N, dtype=tdtype, device="cuda")
        w = torch.randn(N, dtype=tdtype, device="cuda")
        xd, wd = x.double(), w.double()
        ref = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + eps) * wd
        del xd, wd
        tol = 1e-2 if ITEMSIZE[dtype] == 2 else 1e-4
        small = 2 * M * N * ITEMSIZE[dtype] < SMALL_BYTES
        method = "graph" if small else "do_bench"
        line = []
        for impl, fn in fns.items():
            try:
                err, us = check_and_time(fn, x, w, ref, small)
            except Exception as e:  # keep going: one failing shape must not lose the run
                log(f"WARNING: {impl} {dtype} M={M} N={N} failed: {type(e).__name__}: {e}")
                continue
            if not err < tol:
                log(f"WARNING: {impl} {dtype} M={M} N={N}: rel error {err:.3g} >= {tol:g}")
            gbps = shape_bytes(dtype, M, N) / (us * 1e-6) / 1e9
            results[(impl, dtype, M, N)] = {"us": us, "gbps": gbps, "method": method}
            line.append(f"{impl} {us:.1f} us")
            if impl == "torch_compile" and not small:
                us = time_rotating(fn, x, w, shape_bytes(dtype, M, N))
                gbps = shape_bytes(dtype, M, N) / (us * 1e-6) / 1e9
                results[("torch_compile_rotating_graph", dtype, M, N)] = {
                    "us": us, "gbps": gbps, "method": "rotating_graph"}
                line.append(f"rotating graph {us:.1f} us")
        log(f"[{i}/{len(shapes)}] {dtype} M={M} N={N} ({method}): " + ", ".join(line))
        del x, w, ref
        torch.cuda.empty_cache()
    return results


def time_torch_features(shapes, eps, dynamic):
    """Time the torch counterparts of the fused add and the backward pass on each
    (impl, dtype, M, N) of the C++ feature rows. Returns {(torch_impl, dtype, M, N): dict}."""
    import torch
    import torch.nn.functional as F

    def add_then_norm(x, r, w):
        h = x + r
        hf = h.float()
        y = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps)
        return (y * w.float()).to(x.dtype), h

    compiled_add = torch.compile(add_then_norm, dynamic=dynamic)
    results = {}
    for impl, dtype, M, N in sorted(shapes):
        torch_impl, matrices = FEATURES[impl]
        torch.manual_seed(1234)
        tdtype = getattr(torch, dtype)
        x = torch.randn(M, N, dtype=tdtype, device="cuda")
        w = torch.randn(N, dtype=tdtype, device="cuda")
        other = torch.randn(M, N, dtype=tdtype, device="cuda")  # residual or dy
        if impl == "add_rms_norm":
            fn = functools.partial(compiled_add, x, other, w)
        else:
            x.requires_grad_(True)
            w.requires_grad_(True)
            y = F.rms_norm(x, (N,), w, eps=eps)
            fn = functools.partial(torch.autograd.grad, y, (x, w), other, retain_graph=True)
        try:
            fn()
            us = time_do_bench(fn)
        except Exception as e:  # keep going: one failing shape must not lose the run
            log(f"WARNING: {torch_impl} {dtype} M={M} N={N} failed: {type(e).__name__}: {e}")
            continue
        gbps = shape_bytes(dtype, M, N, matrices) / (us * 1e-6) / 1e9
        results[(torch_impl, dtype, M, N)] = {"us": us, "gbps": gbps, "method": "do_bench"}
        log(f"{torch_impl} {dtype} M={M} N={N}: {us:.1f} us")
        del x, w, other, fn
        torch.cuda.empty_cache()
    return results


# ----------------------------------------------------------------------------- output
def fmt_us(us):
    return "–" if us is None else (f"{us:.1f}" if us < 100 else f"{us:.0f}")


def fmt_pct(pct):
    return "–" if pct is None else f"{pct:.0f}"


def shape_key(shape):
    dtype, M, N = shape
    return (DTYPES.index(dtype), N, M)


def impl_table(rows, impls, title):
    """Markdown lines of a table of µs and % copy of `impls` on the shapes any of them has,
    under `title`; none if no shape has them."""
    shapes = sorted({(d, M, N) for (i, d, M, N) in rows if i in impls}, key=shape_key)
    if not shapes:
        return []
    head = ["dtype", "M", "N"] + [f"{impl} {unit}" for impl in impls for unit in ("µs", "% copy")]
    out = ["", title, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for dtype, M, N in shapes:
        cells = [dtype, str(M), str(N)]
        for impl in impls:
            r = rows.get((impl, dtype, M, N), {})
            cells += [fmt_us(r.get("us")), fmt_pct(r.get("pct"))]
        out.append("| " + " | ".join(cells) + " |")
    return out


def build_markdown(rows, shapes, other, meta):
    """rows: {(impl, dtype, M, N): {"us", "pct", "cached"?}} for all impls incl. launch_floor."""
    torch_copy = meta["torch_copy_gbps"]
    out = [f"Copy ceiling: C++ {meta['copy_ceiling_gbps']:.0f} GB/s, torch "
           + (f"{torch_copy:.0f} GB/s" if torch_copy else "–")
           + f" | device: {meta['device']} | date: {meta['date']} | commit: {meta['commit']}", ""]
    head = ["dtype", "M", "N"]
    for impl in TABLE_IMPLS:
        head += [f"{impl} µs", f"{impl} % copy"]
    head += ["launch floor µs", "copy of the shape µs", "copy of the shape % copy"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    any_cached = False
    for dtype, M, N in sorted(shapes, key=shape_key):
        cached = any(rows.get((impl, dtype, M, N), {}).get("cached") for impl in CPP_IMPLS)
        any_cached |= cached
        cells = [dtype, str(M), f"{N}*" if cached else str(N)]
        for impl in TABLE_IMPLS:
            r = rows.get((impl, dtype, M, N), {})
            cells += [fmt_us(r.get("us")), fmt_pct(r.get("pct"))]
        copy = rows.get(("copy", dtype, M, N), {})
        cells += [fmt_us(rows.get(("launch_floor", dtype, M, N), {}).get("us")),
                  fmt_us(copy.get("us")), fmt_pct(copy.get("pct"))]
        out.append("| " + " | ".join(cells) + " |")
    if any_cached:
        out += ["", "\\* buffers fit in L2: the C++ timings of these shapes are L2-warm; "
                "torch shapes with 2·M·N·itemsize < 64 MiB are timed by CUDA-graph replay "
                "(also L2-warm), larger ones by do_bench with L2 flushed."]
    out += impl_table(rows, ROTATING_GRAPH_IMPLS, "Timed alike (one sweep over the rotating "
                      "buffers captured as a CUDA graph, replayed):")
    out += impl_table(rows, FEATURE_IMPLS,
                      "Fused residual add (4 matrices moved) and backward (3 matrices):")
    if other:
        out += ["", "Other measurements:", "", "| name | µs |", "|---|---|"]
        out += [f"| {name} | {fmt_us(us)} |" for name, us in other]
    return "\n".join(out) + "\n"


def plot_bandwidth(rows, path, meta):
    """% of copy ceiling vs N for large shapes (M*N >= 2**22; max M per N)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("WARNING: matplotlib not available, no plot written")
        return False
    dtypes = [d for d in DTYPES if any(k[1] == d for k in rows)]
    if not dtypes:
        return False
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6 * len(dtypes), 4.5), squeeze=False)
    for ax, dtype in zip(axes[0], dtypes):
        for impl in TABLE_IMPLS:
            best = {}  # N -> (M, pct) with the largest M
            for (i, d, M, N), r in rows.items():
                if i == impl and d == dtype and M * N >= LARGE_ELEMS and r.get("pct") is not None:
                    if N not in best or M > best[N][0]:
                        best[N] = (M, r["pct"])
            if best:
                ns = sorted(best)
                ax.plot(ns, [best[n][1] for n in ns], marker="o", label=impl,
                        color=COLORS[impl])
        ax.axhline(100, linestyle="--", color="gray", linewidth=1)
        ax.set_ylim(bottom=0)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (M*N >= 2^22, largest M per N)")
        ax.set_ylabel("% of copy ceiling")
        ax.set_title(dtype)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(f"RMSNorm bandwidth, {meta['device']}, {meta['date']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def build_results_json(rows, meta):
    results = []
    for (impl, dtype, M, N), r in rows.items():
        if (impl not in TABLE_IMPLS + FEATURE_IMPLS + ROTATING_GRAPH_IMPLS
                + ["without_workspace", "copy"] or r.get("us") is None):
            continue
        method = r.get("method") or ("kokkos_harness_cached" if r.get("cached") else "kokkos_harness")
        results.append({"impl": impl, "dtype": dtype, "M": M, "N": N,
                        "us": round(r["us"], 3),
                        "gbps": None if r.get("gbps") is None else round(r["gbps"], 3),
                        "pct_of_copy": None if r.get("pct") is None else round(r["pct"], 3),
                        "method": method})
    results.sort(key=lambda e: (e["impl"], e["dtype"], e["N"], e["M"]))
    torch_copy = meta["torch_copy_gbps"]
    return {"date": meta["date"], "commit": meta["commit"], "device": meta["device"],
            "copy_ceiling_gbps": round(meta["copy_ceiling_gbps"], 3),
            "torch_copy_gbps": None if torch_copy is None else round(torch_copy, 3),
            "torch_compile_dynamic": meta["torch_compile_dynamic"],
            "results": results}


def git_commit():
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], text=True,
                                       cwd=os.path.dirname(os.path.abspath(__file__))).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-json", required=True, help="Google Benchmark JSON of the C++ harness")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--commit", default=None, help="default: git rev-parse --short HEAD")
    ap.add_argument("--date", default=None, help="YYYY-MM-DD, default: today (UTC)")
    ap.add_argument("--device", default=None, help="default: torch device name or JSON context")
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--no-torch", action="store_true", help="skip all PyTorch timing")
    ap.add_argument("--dynamic", action="store_true",
                    help="compile torch.compile's functions for run-time sizes (dynamic=True)")
    args = ap.parse_args()

    ctx, cpp_rows, other = parse_bench_json(args.bench_json)
    ceiling = float(ctx.get("copy_ceiling_gbps", "nan"))
    shapes = sorted({(d, M, N) for (i, d, M, N) in cpp_rows if i == "kokkosrmsnorm"}, key=shape_key)
    log(f"{len(cpp_rows)} C++ results, {len(shapes)} kokkosrmsnorm shapes, "
        f"{len(other)} other measurements; C++ copy ceiling {ceiling:.0f} GB/s")

    device = args.device
    torch_copy = None
    rows = dict(cpp_rows)
    if not args.no_torch:
        import torch
        device = device or torch.cuda.get_device_name()
        torch_copy = torch_copy_ceiling_gbps()
        log(f"torch copy ceiling {torch_copy:.0f} GB/s (reference only)")
        feature_rows = [key for key in cpp_rows if key[0] in FEATURES]
        for key, r in {**time_torch_shapes(shapes, args.eps, args.dynamic),
                       **time_torch_features(feature_rows, args.eps, args.dynamic)}.items():
            r["pct"] = 100.0 * r["gbps"] / ceiling
            rows[key] = r
    meta = {"date": args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
            "commit": args.commit or git_commit(),
            "device": device or ctx.get("device") or "unknown",
            "copy_ceiling_gbps": ceiling, "torch_copy_gbps": torch_copy,
            "torch_compile_dynamic": args.dynamic}

    os.makedirs(args.out_dir, exist_ok=True)
    table_shapes = {(d, M, N) for (i, d, M, N) in rows}
    markdown = build_markdown(rows, table_shapes, other, meta)
    print(markdown, flush=True)
    with open(os.path.join(args.out_dir, "comparison.md"), "w") as f:
        f.write(markdown)
    plotted = plot_bandwidth(rows, os.path.join(args.out_dir, "bandwidth.png"), meta)
    with open(os.path.join(args.out_dir, "h200.json"), "w") as f:
        json.dump(build_results_json(rows, meta), f, indent=1)
        f.write("\n")
    log(f"wrote {args.out_dir}: comparison.md, h200.json" + (", bandwidth.png" if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
