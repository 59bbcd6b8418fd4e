#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds Kokkos from a source tree in the configurations KokkosRMSNorm
# supports, then builds the project against each (warnings are errors) and
# runs every test, so a change to src/ is checked on every backend with one
# command. Nothing is installed outside the scratch folder.
#
#   ci/check_backends.sh KOKKOS_SOURCE_DIR [CONFIG...]
#
# CONFIG (default: every host one, and hip where hipcc is installed):
#   openmp-cxx17              Serial + OpenMP, C++17, deprecated code off
#   openmp-cxx20-deprecated   Serial + OpenMP, C++20, deprecated code on
#   threads-cxx20             Serial + Threads, C++20, deprecated code off
#   threads-cxx17-deprecated  Serial + Threads, C++17, deprecated code on
#   hip                       HIP for gfx90a (compile only: no AMD GPU here)
#   cuda                      CUDA for sm_90 + OpenMP (compile only here)
#
# "Deprecated code off" is Kokkos_ENABLE_DEPRECATED_CODE_4=OFF, the API of
# Kokkos 5. The scratch folder is $SCRATCH (default .deps/check_backends);
# a Kokkos already installed there for a configuration is reused.
# Prints one line per configuration and exits non-zero if any failed.
set -uo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/CMakeLists.txt" ]; then
  sed -n '2,21p' "$0"
  exit 2
fi
kokkos_source=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-$here/.deps/check_backends}
jobs=${JOBS:-$(nproc)}
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=(openmp-cxx17 openmp-cxx20-deprecated threads-cxx20
           threads-cxx17-deprecated)
  command -v hipcc >/dev/null && configs+=(hip)
fi

# Kokkos's CMake options, the project's extra ones and whether the tests run.
settings() {
  local deprecated=OFF standard=17
  case $1 in *-deprecated) deprecated=ON ;; esac
  case $1 in *cxx20*) standard=20 ;; esac
  kokkos_args=(-DCMAKE_CXX_STANDARD=$standard
               -DKokkos_ENABLE_DEPRECATED_CODE_4=$deprecated
               -DKokkos_ENABLE_SERIAL=ON)
  project_args=()
  runs=yes
  case $1 in
    openmp-*) kokkos_args+=(-DKokkos_ENABLE_OPENMP=ON)
              project_args+=(-DKokkosRMSNorm_REQUIRED_BACKENDS="Serial;OpenMP") ;;
    threads-*) kokkos_args+=(-DKokkos_ENABLE_THREADS=ON)
               project_args+=(-DKokkosRMSNorm_REQUIRED_BACKENDS="Serial;Threads") ;;
    hip) export HIP_PLATFORM=amd
         kokkos_args=(-DCMAKE_CXX_COMPILER=hipcc -DCMAKE_CXX_STANDARD=17
                      -DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_AMD_GFX90A=ON
                      -DKokkos_ENABLE_ROCTHRUST=OFF
                      -DKokkos_ENABLE_DEPRECATED_CODE_4=OFF)
         project_args+=(-DCMAKE_CXX_COMPILER=hipcc
                        -DKokkosRMSNorm_REQUIRED_BACKENDS=HIP)
         runs=no ;;
    cuda) kokkos_args+=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_CUDA=ON
                        -DKokkos_ARCH_HOPPER90=ON
                        -DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON)
          project_args+=(-DKokkosRMSNorm_REQUIRED_BACKENDS="OpenMP;Cuda"
                         -DKokkosRMSNorm_ENABLE_BENCHMARKS=ON)
          runs=no ;;
    *) echo "unknown configuration $1" >&2; return 1 ;;
  esac
}

check() {
  local config=$1 log=$scratch/$1.log
  local kokkos_build=$scratch/kokkos-$1 kokkos_prefix=$scratch/install-$1
  local build=$scratch/build-$1
  settings "$config" || return 1
  : >"$log"
  if [ ! -f "$kokkos_prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] &&
     [ ! -f "$kokkos_prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
    echo "== $config: building Kokkos" | tee -a "$log"
    cmake -S "$kokkos_source" -B "$kokkos_build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$kokkos_prefix" \
      "${kokkos_args[@]}" >>"$log" 2>&1 &&
      cmake --build "$kokkos_build" --parallel "$jobs" --target install \
        >>"$log" 2>&1 || return 1
  fi
  echo "== $config: building KokkosRMSNorm" | tee -a "$log"
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$kokkos_prefix" "${project_args[@]}" >>"$log" 2>&1 &&
    cmake --build "$build" --parallel "$jobs" >>"$log" 2>&1 || return 1
  if [ $runs = yes ]; then
    echo "== $config: testing" | tee -a "$log"
    OMP_PROC_BIND=false OMP_NUM_THREADS=$jobs \
      ctest --test-dir "$build" --output-on-failure >>"$log" 2>&1 || return 1
  fi
}

mkdir -p "$scratch"
summary=() failed=0
for config in "${configs[@]}"; do
  start=$SECONDS
  if check "$config"; then
    result="passed: $(grep -E 'tests passed' "$scratch/$config.log" | tail -n 1)"
    [ "$(settings "$config"; echo $runs)" = no ] && result="compiled (not run)"
  else
    result="FAILED (see $scratch/$config.log)"
    failed=1
    tail -n 20 "$scratch/$config.log"
  fi
  summary+=("$(printf '%-26s %s in %d s' "$config" "$result" $((SECONDS - start)))")
done
echo "== Kokkos $(git -C "$kokkos_source" describe --tags 2>/dev/null || echo "at $kokkos_source")"
printf '%s\n' "${summary[@]}"
exit $failed
