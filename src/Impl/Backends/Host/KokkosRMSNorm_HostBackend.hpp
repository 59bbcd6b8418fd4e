// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTBACKEND_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTBACKEND_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "../../KokkosRMSNorm_LaunchShape.hpp"
#include "../../KokkosRMSNorm_Numerics.hpp"
#include "../KokkosRMSNorm_Portable.hpp"
#include "KokkosRMSNorm_BFloat16Rounding.hpp"
#include "KokkosRMSNorm_HostBackwardKernel.hpp"
#include "KokkosRMSNorm_HostKernel.hpp"

namespace KokkosRMSNorm::Impl {

// How the backends that run on the host's cores (Serial, OpenMP, Threads,
// HPX) launch: rms_norm and add_rms_norm as HostRowsKernel and the backward
// pass as HostBackwardKernel, no teams; the forward team kernels (where a
// caller names a LaunchShape) with teams of one thread.
struct HostBackend : PortableBackend {
  static constexpr bool uses_team_kernels = false;

  // Launches HostRowsKernel over blocks of rows of at most 16384 Packs (256
  // KB of floats, which stay in a core's L2 for the second sweep with the
  // output and the weight beside them), and at most the rows a thread, so
  // that every thread has rows; a longer row is a team's, each thread a
  // part of at most 16384 Packs (LOG 71).
  template <class ExecutionSpace, class Math>
  static void launch_rows(const char* label, const ExecutionSpace& space,
                          const Math& math) {
    constexpr std::size_t packs_a_core = 16384;
    const std::size_t rows = math.rows();
    const std::size_t packs = math.packs_per_row();
    using RowATeam =
        Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>>;
    const HostRowsKernel<HostBackend, Math> row_a_team{math, 1};
    const int threads_a_row =
        std::min(ceil_div(packs, packs_a_core),
                 RowATeam(space, 1, 1)
                     .team_size_max(row_a_team, Kokkos::ParallelForTag()));
    if (threads_a_row > 1 && rows > 0) {
      Kokkos::parallel_for(
          label, RowATeam(space, static_cast<int>(rows), threads_a_row),
          row_a_team);
      return;
    }
    const std::size_t rows_per_block = std::max<std::size_t>(
        1, std::min<std::size_t>(packs_a_core / packs,
                                 ceil_div(rows, space.concurrency())));
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>,
                            Kokkos::IndexType<std::size_t>>(
            space, 0, ceil_div(rows, rows_per_block)),
        HostRowsKernel<HostBackend, Math>{math, rows_per_block});
  }

  // Launches the backward pass, a group of rows a thread.
  template <class ExecutionSpace, class Pass>
  static void launch_backward(const char* label, const ExecutionSpace& space,
                              int groups, const Pass& pass) {
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Static>,
                            Kokkos::IndexType<std::size_t>>(space, 0, groups),
        HostBackwardKernel<HostBackend, Pass>{pass});
  }

  // Rows of shifted Packs ran 2 to 6.5 times slower on the host's cores
  // than element by element (16-bit: log 80; f32 and f64: log 87).
  template <class T>
  static constexpr bool reads_shifted_packs() {
    return false;
  }

  // `value` rounded to T. A 16-bit bfloat16 (beside a GPU backend) is
  // rounded on its bits, which the compiler vectorizes: the GPU toolkit's
  // host conversion held bf16 rows back (logs 61 and 62).
  template <class T, class Value>
  KOKKOS_FORCEINLINE_FUNCTION static T round_to(Value value) {
    if constexpr (is_bfloat16_v<T> && sizeof(T) == sizeof(std::uint16_t) &&
                  std::is_same_v<Value, float>) {
      const std::uint16_t bits = bfloat16_bits_nearest(value);
      T rounded;
      memcpy(static_cast<void*>(&rounded), &bits, sizeof bits);
      return rounded;
    } else {
      return static_cast<T>(value);
    }
  }

  static LaunchShape choose_launch_shape(const RowFacts& rows) {
    // Where a host runs the team kernels in a shape chosen here (the perf
    // harness's launch floor): a team is one thread walking a block of rows
    // (a team per row where a block is one row), four Packs at a time; a row
    // stays in cache between its two sweeps.
    const std::size_t rows_per_team =
        std::max<std::size_t>(1, 16384 / rows.packs_per_row);
    if (rows_per_team == 1) {
      return LaunchShape::team_per_row<HostBackend>(rows, 1, 4);
    }
    return LaunchShape::rows_per_vector(rows, static_cast<int>(rows_per_team),
                                        1, 1, 4, 1);
  }

  // A backward group per 64th of the rows: the same groups, and so the same
  // bits of dweight, on any number of threads.
  static int backward_rows_per_team(std::size_t rows, std::size_t) {
    return std::max(1, ceil_div(rows, 64));
  }

  static BackwardLanes backward_lanes(std::size_t, int, int) { return {1, 4}; }

  static int dweight_columns(std::size_t) { return 1; }
  static int dweight_threads(std::size_t) { return 1; }
};

}  // namespace KokkosRMSNorm::Impl

#endif
