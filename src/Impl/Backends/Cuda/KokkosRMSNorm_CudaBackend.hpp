// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_CUDA_CUDABACKEND_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_CUDA_CUDABACKEND_HPP

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../KokkosRMSNorm_RowSums.hpp"
#include "../Gpu/KokkosRMSNorm_GpuBackend.hpp"

namespace KokkosRMSNorm::Impl {

// What NVIDIA GPUs do better than Kokkos alone says: PTX cache hints and
// asynchronous copies (compute capability 8.0 and newer), sums through warp
// shuffles, rows split across teams that are sure to run at once, and
// register budgets through LaunchBounds.
struct CudaBackend : GpuBackend<Kokkos::Cuda> {
  static constexpr int warp_size = 32;

  // Loads *p, giving it the last place in line for eviction from L2, as
  // torch.compile's generated RMSNorm loads x, so that a row read twice is
  // still in L2 the second time (log 26; the hint on L1 gained less). A
  // 16-byte value is loaded with the PTX hint.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static T load_evicting_last(const T* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (sizeof(T) == 16) {
      unsigned long long policy;
      asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
      unsigned words[4];
      asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]),
                     "=r"(words[3])
                   : "l"(p), "l"(policy));
      T value;
      memcpy(&value, words, sizeof(T));
      return value;
    }
#endif
    return *p;
  }

  // The larger of `largest` and |value|, a NaN value ignored: max.f32 and
  // abs.f32, two instructions where the portable compare-and-select takes
  // seven (log 77).
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static T larger_magnitude(T largest, T value) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, float>) {
      return fmaxf(largest, fabsf(value));
    } else {
      return fmax(largest, fabs(value));
    }
#else
    return PortableBackend::larger_magnitude(largest, value);
#endif
  }

  // The FP8 E4M3 codes of `values`, two converted by one instruction where
  // the GPU has it (compute capability 8.9 and newer). It gives the bits of
  // float_to_e4m3_bits for every float but NaN, whose magnitude 0x7f it
  // gives but not always its sign: the values' signs are put back, which
  // changes no other code (Cuda.E4M3MatchesPortable checks all 2^32). No
  // branch, so that the kernel's loops over Packs stay unrolled and its
  // Packs in registers (log 72).
  template <int Width>
  KOKKOS_FORCEINLINE_FUNCTION static void e4m3_codes(
      const float (&values)[Width], std::uint8_t (&codes)[Width]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    const auto sign_of = [](float value) {
      return static_cast<unsigned>(__float_as_uint(value) >> 24) & 0x80u;
    };
    for (int k = 0; k < Width; k += 2) {
      const float low = values[k];
      const float high = k + 1 < Width ? values[k + 1] : 0.0f;
      unsigned short pair;  // the code of the second operand is the low byte
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;"
          : "=h"(pair)
          : "f"(high), "f"(low));
      codes[k] = static_cast<std::uint8_t>((pair & 0x7fu) | sign_of(low));
      if (k + 1 < Width) {
        codes[k + 1] =
            static_cast<std::uint8_t>(((pair >> 8) & 0x7fu) | sign_of(high));
      }
    }
#else
    PortableBackend::e4m3_codes(values, codes);
#endif
  }

  // `word`, through an empty asm statement that nvcc cannot see through, so
  // that it re-reads the word instead of keeping what it derived from it
  // alive in other registers (log 106).
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t opaque(std::uint32_t word) {
#ifdef __CUDA_ARCH__
    asm volatile("" : "+r"(word));
#endif
    return word;
  }

  // A 16-byte value is copied by cp.async, from global to shared memory
  // without passing through registers, with the L2 policy of
  // load_evicting_last.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy_to_scratch(T* slot,
                                                          const T* from) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (sizeof(T) == 16) {
      // One asm statement: with the policy made by a statement of its own,
      // nvcc 13.0 emitted cp.async instructions that read an unset register
      // for it (illegal instruction, bf16 split rows, log 34).
      asm volatile(
          "{\n\t.reg .b64 policy;\n\t"
          "createpolicy.fractional.L2::evict_last.b64 policy, 1.0;\n\t"
          "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, "
          "policy;\n\t}"
          :
          : "r"(static_cast<unsigned>(__cvta_generic_to_shared(slot))),
            "l"(from)
          : "memory");
      return;
    }
#endif
    *slot = *from;
  }

  KOKKOS_FORCEINLINE_FUNCTION static void wait_for_copies_to_scratch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
  }

#ifdef __CUDA_ARCH__
  // Gives every lane of a warp the values joined over its 32 lanes (sums,
  // or maxima; see RowReduction): a butterfly of shuffles, five steps of one
  // shuffle and one join a row. Both lanes of a pair join the same two
  // values, so every lane ends with the same bits.
  template <class Values>
  __device__ static void join_over_warp(Values& values) {
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
      for (int row = 0; row < Values::rows; ++row) {
        values.join(row, __shfl_xor_sync(0xffffffffu, values[row], offset));
      }
    }
  }

  // Gives every thread of a team of `threads` threads, whole warps of one
  // vector lane each (Kokkos's team rank is threadIdx.y), the values joined
  // over the team: each warp's, then the warps' through shared memory,
  // joined in the same order by every thread.
  template <class Values>
  __device__ static void join_over_team(Values& values, int threads) {
    using T = typename Values::value_type;
    __shared__ T warp_values[1024 / warp_size][Values::rows];
    join_over_warp(values);
    if (threadIdx.y % warp_size == 0) {
      for (int row = 0; row < Values::rows; ++row) {
        warp_values[threadIdx.y / warp_size][row] = values[row];
      }
    }
    __syncthreads();
    for (int row = 0; row < Values::rows; ++row) {
      values[row] = warp_values[0][row];
      for (int warp = 1; warp < threads / warp_size; ++warp) {
        values.join(row, warp_values[warp][row]);
      }
    }
    __syncthreads();  // before the next reduction writes warp_values again
  }
#endif

  // Calls f(lane) for each lane of `lanes` this thread takes. Kokkos's
  // TeamThreadRange loops from threadIdx.y in steps of blockDim.y, which nvcc
  // cannot bound, so it keeps the loop and its branches even where each
  // thread takes one lane (log 124): a team of TeamLanes threads, one lane
  // each, takes its lane, the team rank, without them.
  template <int TeamLanes, class Lanes, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_lane(const Lanes& lanes,
                                                        const F& f) {
#ifdef __CUDA_ARCH__
    if constexpr (TeamLanes > 0) {
      f(static_cast<int>(threadIdx.y));
      return;
    }
#endif
    Kokkos::parallel_for(lanes, f);
  }

  // Over lanes that fill whole warps, a team thread's 32 vector lanes
  // (VectorLanes) or a team's threads, the lanes join their values with
  // join_over_warp and join_over_team, as torch.compile's kernels do; other
  // lane counts take Kokkos's reductions, which loop over a vector length
  // known at run time, with a lane mask the compiler cannot prove uniform
  // (log 47), and take four barriers and three integer divisions a team
  // reduction; tiny calls wait on exactly those instructions (log 48).
  template <bool VectorLanes, int TeamLanes, class Lanes, class F, class T,
            int Rows, class Join>
  KOKKOS_FORCEINLINE_FUNCTION static void reduce_over_lanes(
      const Lanes& lanes, [[maybe_unused]] int lane_count, const F& f,
      RowReduction<T, Rows, Join>& result) {
#ifdef __CUDA_ARCH__
    if (VectorLanes ? lane_count == warp_size : lane_count % warp_size == 0) {
      RowReduction<T, Rows, Join> values;
      for_each_lane<TeamLanes>(lanes, [&](int lane) { f(lane, values); });
      if constexpr (VectorLanes) {
        join_over_warp(values);
      } else {
        join_over_team(values, lane_count);
      }
      result = values;
      return;
    }
#endif
    Kokkos::parallel_reduce(lanes, f, result);
  }

  // Teams that share rows fit twice on any multiprocessor (up to 512
  // threads under LaunchBounds<1024, 1>, 256 under LaunchBounds<512, 2>,
  // each with at most 34 KB of shared memory, of the 96 KB or more a
  // multiprocessor has from compute capability 7.0) and concurrency() counts
  // at most 2048 threads a multiprocessor, so concurrency() / 2048 teams of
  // a row take at most half of what the device holds: two such kernels at
  // once still progress.
  static int max_teams_per_row(const Kokkos::Cuda& space) {
    return std::max(1, space.concurrency() / 2048);
  }

  // Of a multiprocessor's 65536 registers, Registers a thread for teams of
  // MaxThreads: 65536 / (MaxThreads x Registers) teams a multiprocessor.
  template <unsigned MaxThreads, unsigned Registers>
  using launch_bounds =
      Kokkos::LaunchBounds<MaxThreads, 65536 / (MaxThreads * Registers)>;
};

}  // namespace KokkosRMSNorm::Impl

#endif

#endif
