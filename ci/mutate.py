#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plants small bugs in src/, one at a time, and reports which the unit tests
catch: every one must be caught.

    ci/mutate.py [--kokkos-root PREFIX] [--build-dir DIR] [--only NAME...]

Each mutant is built from a copy of src/ in DIR (default .deps/mutate) with
the host backend of the Kokkos found (Debian's, or PREFIX), and the unit
tests of that backend run; a mutant whose tests all pass is "missed". The
sources in the working tree are never touched. Kokkos 4.1 or newer with
OpenMP or Threads also exercises the workspace's instance check, which
needs two instances.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

# (name, file under src/, text to find (exactly once), replacement)
MUTANTS = [
    ("bfloat16 ties rounded up", "Impl/Backends/Host/KokkosRMSNorm_BFloat16Rounding.hpp",
     "(bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16", "(bits + 0x8000u) >> 16"),
    ("eps outside the square root", "Impl/KokkosRMSNorm_RowMath.hpp",
     "rsqrt(sum_of_squares * inverse_n + eps)",
     "rsqrt(sum_of_squares * inverse_n) + eps"),
    ("shifted rows read past their ends as ones", "Impl/KokkosRMSNorm_ShiftedRows.hpp",
     "                          : std::remove_const_t<T>(0.0f);",
     "                          : std::remove_const_t<T>(1.0f);"),
    ("shifted rows ignore their lead", "Impl/KokkosRMSNorm_ShiftedRows.hpp",
     "return j * Width - lead(row);", "return j * Width - 0 * lead(row);"),
    ("a shifted weight ignores the row's lead", "Impl/KokkosRMSNorm_ShiftedRows.hpp",
     "const int first = j * Width - lead;", "const int first = j * Width - 0 * lead;"),
    ("mean over N + 1", "Impl/KokkosRMSNorm_RowMath.hpp",
     "static_cast<accumulation_type>(x.extent(1))};",
     "static_cast<accumulation_type>(x.extent(1) + 1)};"),
    ("a lane skips its last Pack of a row", "Impl/KokkosRMSNorm_ForwardKernel.hpp",
     "      if (j < end) {", "      if (j < end - 1) {"),
    ("host rows lose their tail", "Impl/Backends/Host/KokkosRMSNorm_HostKernel.hpp",
     "for (int step = 0; j < packs; ++j, ++step) {",
     "for (int step = 0; j < packs - 1; ++j, ++step) {"),
    ("one_plus adds nothing", "Impl/KokkosRMSNorm_WeightFactors.hpp",
     "AddOne ? Accumulation(1) + factor : factor",
     "factor"),
    ("dweight drops a group", "Impl/KokkosRMSNorm_BackwardKernel.hpp",
     "for (int group = thread; group < groups; group += threads) {",
     "for (int group = thread; group < groups - 1; group += threads) {"),
    ("split row drops its last chunk", "Impl/KokkosRMSNorm_RowSplit.hpp",
     "for (int c = 0; c < teams_per_row; ++c) {",
     "for (int c = 0; c < teams_per_row - 1; ++c) {"),
    ("a stolen chunk is summed from the team's own", "Impl/KokkosRMSNorm_ForwardKernel.hpp",
     "chunk_sum_of_squares(team, row, c);",
     "chunk_sum_of_squares(team, row, chunk);"),
    ("a shard's finish divides by its own length", "Impl/KokkosRMSNorm_Sharded.hpp",
     "math.inverse_n = Accumulation(1) / static_cast<Accumulation>(n);",
     "math.inverse_n = Accumulation(1) / static_cast<Accumulation>(x_rows.extent(1));"),
    ("rank-3 row order unchecked", "Impl/KokkosRMSNorm_Rows.hpp",
     "if (!has_row_order<RowRank>(view, order)) {", "if (false) {"),
    ("extents of x unchecked", "Impl/KokkosRMSNorm_Validate.hpp",
     "      if (view.extent(r) != x.extent(r)) {\n        throw_invalid(function, std::string(name) + \" extents \" +\n                                    extents_of(view) +\n                                    \" differ",
     "      if (false) {\n        throw_invalid(function, std::string(name) + \" extents \" +\n                                    extents_of(view) +\n                                    \" differ"),
    ("infinite eps accepted", "Impl/KokkosRMSNorm_Validate.hpp",
     "!std::isfinite(eps) || eps < 0", "std::isnan(eps) || eps < 0"),
    ("eps that rounds to 0 accepted", "Impl/KokkosRMSNorm_Validate.hpp",
     "eps > 0 && static_cast<Accumulation>(eps) == 0",
     "eps > 0 && static_cast<Accumulation>(eps) < 0"),
    ("overlapping segments pass", "Impl/KokkosRMSNorm_Overlap.hpp",
     "      return true;\n    }\n  }\n  return false;",
     "      return false;\n    }\n  }\n  return false;"),
    ("any shared memory counts as the same View", "Impl/KokkosRMSNorm_Overlap.hpp",
     "return a.data() == b.data();", "return true;"),
    ("a row's scale ignores its largest |y|", "Impl/KokkosRMSNorm_QuantizedOutput.hpp",
     "const float scale = largest / Format::largest;",
     "const float scale = (largest > 0 ? 1.0f : 0.0f) / Format::largest;"),
    ("a static scale multiplies", "Impl/KokkosRMSNorm_QuantizedOutput.hpp",
     "None(), 1.0f / quantization.scale,", "None(), quantization.scale,"),
    ("team lanes' largest |y| not joined", "Impl/KokkosRMSNorm_ForwardKernel.hpp",
     "maxima.join(r, this->largest_magnitude(h, rstd[r], factors));",
     "maxima.join(r, 0 * this->largest_magnitude(h, rstd[r], factors));"),
    ("rows of heads all read their token's first head",
     "Impl/KokkosRMSNorm_HeadRows.hpp",
     "return heads(row / heads_a_token, row % heads_a_token, j);",
     "return heads(row / heads_a_token, 0 * (row % heads_a_token), j);"),
    ("a token's heads cover one head's bytes", "Impl/KokkosRMSNorm_Overlap.hpp",
     "const std::size_t inner = (view.extent(1) - 1) * view.stride(1) +",
     "const std::size_t inner = 0 * view.stride(1) +"),
    ("a workspace serves any instance", "KokkosRMSNorm_Workspace.hpp",
     "!Impl::same_instance(*held_.instance, space)",
     "!Impl::same_instance(space, space)"),
]


def run(command, **kwargs):
    return subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kokkos-root")
    parser.add_argument("--build-dir", default=".deps/mutate")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    work = (root / args.build_dir).resolve()
    tree = work / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(root, tree, ignore=shutil.ignore_patterns(
        ".git", ".deps", "build*", "install*"))
    build = work / "build"
    configure = ["cmake", "-S", str(tree), "-B", str(build),
                 "-DCMAKE_BUILD_TYPE=Release"]
    if args.kokkos_root:
        configure.append(f"-DKokkos_ROOT={args.kokkos_root}")
    result = run(configure)
    if result.returncode:
        sys.exit(result.stdout)
    listed = run(["cmake", "--build", str(build), "--target", "help"]).stdout
    targets = sorted(set(re.findall(r"KokkosRMSNorm_UnitTest_[A-Za-z]+", listed)))
    missed = []
    for name, path, find, replace in MUTANTS:
        if args.only and name not in args.only:
            continue
        source = tree / "src" / path
        original = source.read_text()
        if original.count(find) != 1:
            sys.exit(f"{name}: the text to mutate is not in {path} exactly once")
        source.write_text(original.replace(find, replace))
        try:
            built = run(["cmake", "--build", str(build), "--parallel",
                         "--target", *targets])
            if built.returncode:
                verdict = "DOES NOT BUILD"  # a mutant must compile
            else:
                env = {**os.environ, "KOKKOSRMSNORM_RANDOM_CASES": "250"}
                failed = [t for t in targets if run(
                    [str(build / "unit_tests" / t), "--gtest_brief=1"],
                    env=env).returncode]
                verdict = ("caught by " + ", ".join(failed)) if failed else "MISSED"
        finally:
            source.write_text(original)
        caught = verdict.startswith("caught")
        print(f"{'ok ' if caught else '!! '} {name}: {verdict}", flush=True)
        if not caught:
            missed.append(name)
    print(f"{len(missed)} not caught" if missed else "every planted bug caught")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
