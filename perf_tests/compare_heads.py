#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""QK-norm on a fused qkv buffer: the C++ harness (KokkosRMSNorm_PerfTest --heads) beside
torch.compile of the same normalization of the same strided views, and beside a copy of
the same bytes.

Reads the harness's Google Benchmark JSON (median aggregates). For each (dtype, tokens,
head_dim) it timed, builds the fused buffer (tokens, (32 + 2 * 8) * head_dim), q its first
32 heads, and times torch.compile (dynamic=False) of the float-accumulating RMSNorm of
q viewed as (tokens, 32, head_dim): out of place (vLLM's Qwen3 QK-norm) and in place
(q.copy_ of it), as compare_torch.py times rotating graphs. Writes heads.md (also printed)
and heads.json into --out-dir.

"% copy" is the copy of the bytes touched (q read and written), timed by the harness in
the same process (heads_copy_bytes), over the call's time.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (time_rotating)
from compare_quantized import harness_arguments, parse, write_record  # noqa: E402

Q_HEADS, KV_HEADS = 32, 8
IMPLS = ["heads_in_place", "heads_out_of_place", "heads_contiguous"]
TORCH_OF = {"heads_in_place": "in_place", "heads_out_of_place": "out_of_place"}
EPS = 1e-6


def time_torch(shapes):
    import torch
    import torch._dynamo
    for key in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, key):
            setattr(torch._dynamo.config, key, 1024)

    def q_of(qkv, head_dim):
        return qkv[:, :Q_HEADS * head_dim].unflatten(-1, (Q_HEADS, head_dim))

    def norm(q, w):
        qf = q.float()
        return (qf * torch.rsqrt(qf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(q.dtype)

    def out_of_place(qkv, w):
        return norm(q_of(qkv, w.shape[0]), w)

    def in_place(qkv, w):
        q = q_of(qkv, w.shape[0])
        q.copy_(norm(q, w))

    fns = {"in_place": torch.compile(in_place, dynamic=False),
           "out_of_place": torch.compile(out_of_place, dynamic=False)}
    results = {}
    for dtype, tokens, head_dim in shapes:
        torch.manual_seed(1234)
        qkv = torch.randn(tokens, (Q_HEADS + 2 * KV_HEADS) * head_dim,
                          dtype=getattr(torch, dtype), device="cuda")
        w = torch.randn(head_dim, dtype=qkv.dtype, device="cuda")
        nbytes = 2 * tokens * Q_HEADS * head_dim * qkv.element_size()
        for impl, fn in fns.items():
            try:
                # Rotating over copies of the whole buffer, as the harness does.
                us = compare_torch.time_rotating(fn, qkv, w, qkv.numel() * qkv.element_size())
            except Exception as e:  # one failing formula must not lose the run
                print(f"WARNING: torch {impl} {dtype} {tokens}x{head_dim}: "
                      f"{type(e).__name__}: {e}", file=sys.stderr)
                continue
            results[(impl, dtype, tokens, head_dim)] = us
            print(f"torch.compile {impl} {dtype} {tokens}x{head_dim}: {us:.1f} us "
                  f"({nbytes / us / 1e3:.0f} GB/s)", file=sys.stderr)
        del qkv, w
        torch.cuda.empty_cache()
    return results


def main():
    parser = harness_arguments()
    args = parser.parse_args()
    context, rows = parse(args.bench_json)
    shapes = sorted({(d, m, n) for (i, d, m, n) in rows if i in IMPLS})
    torch_us = {} if args.no_torch else time_torch(shapes)
    table = ["| dtype | tokens x head_dim | call | ours µs | % of copy of its bytes "
             "| torch.compile µs | ours / torch.compile |",
             "|---|---|---|---:|---:|---:|---:|"]
    cells = []
    for dtype, m, n in shapes:
        copy = rows.get(("heads_copy_bytes", dtype, m, n))
        for impl in IMPLS:
            ours = rows.get((impl, dtype, m, n))
            if ours is None:
                continue
            torch_time = torch_us.get((TORCH_OF.get(impl), dtype, m, n))
            pct = 100 * copy / ours if copy else None
            ratio = ours / torch_time if torch_time else None
            cells.append({"impl": impl, "dtype": dtype, "tokens": m, "head_dim": n,
                          "us": ours, "copy_us": copy, "pct_of_copy": pct,
                          "torch_compile_us": torch_time})
            table.append(f"| {dtype} | {m} x {n} | {impl} | {ours:.1f} | "
                         + (f"{pct:.0f}" if pct else "–") + " | "
                         + (f"{torch_time:.1f}" if torch_time else "–") + " | "
                         + (f"{ratio:.2f}" if ratio else "–") + " |")
    write_record(args.out_dir, "heads", table, cells, context, args.commit,
                 q_heads=Q_HEADS, kv_heads=KV_HEADS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
