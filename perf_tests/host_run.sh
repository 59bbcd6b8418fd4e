#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The host record: times rms_norm on the host backend (OpenMP) of a build
# that has a GPU backend beside it (so that bf16 is 16 bits wide on the host
# too), against a parallel copy of the same shape in the same process and
# against PyTorch on the CPU in the same call.
#
#   perf_tests/host_run.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a build with KokkosRMSNorm_ENABLE_BENCHMARKS=ON, which then
# has perf_tests/KokkosRMSNorm_PerfTest_Host. THREADS (default: every core)
# sets the OpenMP threads and PyTorch's; COMMIT and MACHINE label the record.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$1 out=$2
threads=${THREADS:-$(nproc)}
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads OMP_NUM_THREADS=$threads
"$build_dir"/perf_tests/KokkosRMSNorm_PerfTest_Host \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.05 --benchmark_filter="${BENCH_FILTER:-^(kokkosrmsnorm|one_output|copy)/}" \
  --benchmark_out="$out/host-benchmark.json" --benchmark_out_format=json >/dev/null
python3 "$here/compare_torch_host.py" --bench-json "$out/host-benchmark.json" \
  --out-dir "$out" --threads "$threads" --commit "${COMMIT:-unknown}" \
  --machine "${MACHINE:-$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)}"
