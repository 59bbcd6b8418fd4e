#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds, checks and measures KokkosRMSNorm on a CUDA GPU, the same way every
# time, so that each performance change is judged by one call.
#
#   perf_tests/gpu_run.sh kokkos KOKKOS_SOURCE PREFIX      build Kokkos (CUDA
#                                                           sm_90 + OpenMP)
#   perf_tests/gpu_run.sh build KOKKOS_PREFIX [BUILD_DIR]   configure and build
#   perf_tests/gpu_run.sh run BUILD_DIR OUT_DIR             tests, main job,
#                                                           benchmarks, comparison
#   perf_tests/gpu_run.sh all KOKKOS_PREFIX OUT_DIR         both
#   perf_tests/gpu_run.sh surface BUILD_DIR OUT_DIR [smoke] the performance
#                                                           surface, in parts,
#                                                           and its heat maps
#
# KOKKOS_PREFIX holds a CUDA-enabled Kokkos (and optionally Kokkos Kernels).
# The build may run on a machine without a GPU and be carried to one; then
# set COMMIT to the commit being measured (no .git travels with it) and
# RUNTIME_LIBS to a folder of shared libraries the build machine had
# (libbenchmark); DEPS_PREFIX names a prefix holding Google Test and Google
# Benchmark where the machine has none. BENCH_FILTER narrows the benchmarks
# (a regex); SWEEP_FILTER, if set, also runs the launch-shape sweep on the
# benchmarks it matches. Kokkos is built for the machine's own host CPU
# (Kokkos_ARCH_NATIVE), which the host record (host_run.sh) times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")

kokkos() {
  local kokkos_source=$1 prefix=$2
  cmake -S "$kokkos_source" -B "$prefix-build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_CUDA=ON \
    -DKokkos_ARCH_HOPPER90=ON -DKokkos_ARCH_NATIVE=ON \
    -DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON \
    -DKokkos_ENABLE_DEPRECATED_CODE_4=OFF
  cmake --build "$prefix-build" --parallel --target install
}

build() {
  local prefix=$1 build_dir=${2:-$source_dir/build-cuda}
  cmake -S "$source_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix${DEPS_PREFIX:+;$DEPS_PREFIX}" \
    -DKokkosRMSNorm_ENABLE_BENCHMARKS=ON
  cmake --build "$build_dir" --parallel
}

run() {
  local build_dir=$1 out=$2
  mkdir -p "$out"
  export LD_LIBRARY_PATH=${RUNTIME_LIBS:+$RUNTIME_LIBS:}${LD_LIBRARY_PATH:-}
  local commit=${COMMIT:-$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv

  local status=0
  for test in "$build_dir"/unit_tests/KokkosRMSNorm_UnitTest_*; do
    echo "== $(basename "$test")"
    "$test" --gtest_brief=1 >"$out/$(basename "$test").log" 2>&1 || status=1
    tail -n 3 "$out/$(basename "$test").log"
  done
  echo "== rmsnorm_run"
  "$build_dir"/examples/rmsnorm_run/rmsnorm_run || status=1

  echo "== benchmarks"
  "$build_dir"/perf_tests/KokkosRMSNorm_PerfTest \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_min_time=0.05 --benchmark_filter="${BENCH_FILTER:-.}" \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json >/dev/null
  if [ -n "${SWEEP_FILTER:-}" ]; then
    echo "== launch-shape sweep"
    "$build_dir"/perf_tests/KokkosRMSNorm_PerfTest --sweep \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_min_time=0.05 --benchmark_filter="$SWEEP_FILTER" \
      --benchmark_out="$out/sweep.json" --benchmark_out_format=json >/dev/null
  fi
  echo "== comparison"
  python3 "$here/compare_torch.py" --bench-json "$out/bench.json" \
    --out-dir "$out" --commit "$commit" ${COMPARE_ARGS:-}
  return $status
}

# The surface in parts of a dtype and a few row lengths each, a JSON each,
# so that a part cut short by a time limit costs only itself; about 9
# minutes on the H200 (smoke: one part a dtype, about a minute). DTYPES
# (default: all four) names the dtypes to run, so that a run can be split
# across calls; surface.py then reads every part's JSON at once.
surface() {
  local build_dir=$1 out=$2 smoke=${3:-}
  mkdir -p "$out"
  export LD_LIBRARY_PATH=${RUNTIME_LIBS:+$RUNTIME_LIBS:}${LD_LIBRARY_PATH:-}
  local commit=${COMMIT:-$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  local groups=("128|256|512|768|1000|1024" "1536|2048|2560|3072|3584"
                "4096|4097|5003|5120|6144" "7168|8192|10240|12288|14336"
                "16384|18432|24576|32768|65536")
  local flag=--surface dtype group
  if [ -n "$smoke" ]; then flag=--surface=smoke; groups=("[0-9]+"); fi
  for dtype in ${DTYPES:-float32 bfloat16 float16 float64}; do
    for group in "${!groups[@]}"; do
      "$build_dir"/perf_tests/KokkosRMSNorm_PerfTest "$flag" \
        --benchmark_repetitions=1 --benchmark_min_time=${MIN_TIME:-0.015} \
        --benchmark_filter="^surface(_graph)?/[a-z0-9_]+/$dtype/M:[0-9]+/N:(${groups[$group]})(/|\$)" \
        --benchmark_out="$out/surface-$dtype-$group.json" \
        --benchmark_out_format=json >/dev/null || true
    done
  done
  python3 "$here/surface.py" "$out"/surface-*.json --out-dir "$out" \
    --commit "$commit" ${SURFACE_ARGS:-}
}

case ${1:-} in
  kokkos) kokkos "${@:2}" ;;
  surface) surface "${@:2}" ;;
  build) build "${@:2}" ;;
  run) run "${@:2}" ;;
  all) build "$2" && run "$source_dir/build-cuda" "$3" ;;
  *) sed -n '2,25p' "$0"; exit 2 ;;
esac
