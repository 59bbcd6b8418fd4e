#ifndef KOKKOSRMSNORM_IMPL_ROWSUMS_HPP
#define KOKKOSRMSNORM_IMPL_ROWSUMS_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The sums of squares of the Rows rows a lane holds at once, reduced over
// the lanes together (reduce_over_lanes).
template <class T, int Rows>
struct RowSums {
  T sum[Rows] = {};

  KOKKOS_INLINE_FUNCTION T& operator[](int row) { return sum[row]; }
  KOKKOS_INLINE_FUNCTION const T& operator[](int row) const { return sum[row]; }

  KOKKOS_INLINE_FUNCTION RowSums& operator+=(const RowSums& other) {
    for (int row = 0; row < Rows; ++row) {
      sum[row] += other.sum[row];
    }
    return *this;
  }
  // Kokkos 3.4 joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(
      const volatile RowSums& other) volatile {
    for (int row = 0; row < Rows; ++row) {
      sum[row] = sum[row] + other.sum[row];
    }
  }
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
inline constexpr int warp_size = 32;

// Gives every lane of a warp the sums over its 32 lanes: a butterfly of
// shuffles, five steps of one shuffle and one add a row. Both lanes of a
// pair add the same two values, so every lane ends with the same bits.
template <class T, int Rows>
__device__ void add_over_warp(RowSums<T, Rows>& sums) {
  for (int offset = warp_size / 2; offset > 0; offset /= 2) {
    for (int row = 0; row < Rows; ++row) {
      sums[row] += __shfl_xor_sync(0xffffffffu, sums[row], offset);
    }
  }
}

// Gives every thread of a team of `threads` threads, whole warps of one
// vector lane each (Kokkos's team rank is threadIdx.y), the sums over the
// team: each warp's, then the warps' through shared memory, added in the
// same order by every thread.
template <class T, int Rows>
__device__ void add_over_team(RowSums<T, Rows>& sums, int threads) {
  __shared__ T warp_sums[1024 / warp_size][Rows];
  add_over_warp(sums);
  if (threadIdx.y % warp_size == 0) {
    for (int row = 0; row < Rows; ++row) {
      warp_sums[threadIdx.y / warp_size][row] = sums[row];
    }
  }
  __syncthreads();
  for (int row = 0; row < Rows; ++row) {
    sums[row] = warp_sums[0][row];
    for (int warp = 1; warp < threads / warp_size; ++warp) {
      sums[row] += warp_sums[warp][row];
    }
  }
  __syncthreads();  // before the next reduction writes warp_sums again
}
#endif

// Reduces f(lane, sums) over `lanes`, lane_count lanes each taking one
// index, into `result`, which every lane receives: Kokkos's parallel_reduce,
// except in CUDA code over lanes that fill whole warps, a team thread's 32
// vector lanes (VectorLanes) or a team's threads, which add their sums with
// add_over_warp and add_over_team, as torch.compile's kernels do. Kokkos's
// reductions loop over a vector length known at run time, with a lane mask
// the compiler cannot prove uniform (bf16 65536 x 256: 105 of the 640
// instructions a warp executes, log 47), and a team's take four barriers
// and three integer divisions (256 threads); tiny calls, which wait on one
// warp's chain of instructions, took 6-10% less time (log 48).
template <bool VectorLanes, class Lanes, class F, class T, int Rows>
KOKKOS_FORCEINLINE_FUNCTION void reduce_over_lanes(
    const Lanes& lanes, [[maybe_unused]] int lane_count, const F& f,
    RowSums<T, Rows>& result) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if (VectorLanes ? lane_count == warp_size : lane_count % warp_size == 0) {
    RowSums<T, Rows> sums;
    Kokkos::parallel_for(lanes, [&](int lane) { f(lane, sums); });
    if constexpr (VectorLanes) {
      add_over_warp(sums);
    } else {
      add_over_team(sums, lane_count);
    }
    result = sums;
    return;
  }
#endif
  Kokkos::parallel_reduce(lanes, f, result);
}

}  // namespace KokkosRMSNorm::Impl

namespace Kokkos {

template <class T, int Rows>
struct reduction_identity<KokkosRMSNorm::Impl::RowSums<T, Rows>> {
  KOKKOS_FORCEINLINE_FUNCTION static KokkosRMSNorm::Impl::RowSums<T, Rows>
  sum() {
    return {};
  }
};

}  // namespace Kokkos

#endif
