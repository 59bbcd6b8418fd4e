// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_PORTABLE_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_PORTABLE_HPP

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Pack.hpp"
#include "../KokkosRMSNorm_Quantize.hpp"
#include "../KokkosRMSNorm_RowSums.hpp"

namespace KokkosRMSNorm::Impl {

// What every backend can do with Kokkos alone: loads and copies through
// plain C++, sums over lanes through Kokkos's reductions, rows never split
// across teams. A backend with better means hides these with its own.
struct PortableBackend {
  // Whether rms_norm, add_rms_norm and rms_norm_backward launch the team
  // kernels (KokkosRMSNorm_ForwardKernel.hpp, BackwardKernel); a backend
  // that does not has launch_rows and launch_backward.
  static constexpr bool uses_team_kernels = true;

  // Loads *p, the first read of x, asking the cache to keep it where the
  // backend can.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static T load_evicting_last(const T* p) {
    return *p;
  }

  // Value k of `pack` in Accumulation: the one way a kernel reads a Pack's
  // value in its accumulation type.
  template <class Accumulation, class T, int Width>
  KOKKOS_FORCEINLINE_FUNCTION static Accumulation widened(
      const Pack<T, Width>& pack, int k) {
    return static_cast<Accumulation>(pack.lane[k]);
  }

  // `value` rounded to T, the type of the values stored.
  template <class T, class Value>
  KOKKOS_FORCEINLINE_FUNCTION static T round_to(Value value) {
    return static_cast<T>(value);
  }

  // The larger of `largest` and |value|, a NaN value ignored (Larger).
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static T larger_magnitude(T largest, T value) {
    return Larger::apply(largest, value < 0 ? -value : value);
  }

  // The FP8 E4M3 codes of `values` (float_to_e4m3_bits).
  template <int Width>
  KOKKOS_FORCEINLINE_FUNCTION static void e4m3_codes(
      const float (&values)[Width], std::uint8_t (&codes)[Width]) {
    for (int k = 0; k < Width; ++k) {
      codes[k] = float_to_e4m3_bits(values[k]);
    }
  }

  // `word` itself, which the compiler may not see through where the backend
  // can say so: a held value re-read for its last use (HeldPack::reread).
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t opaque(std::uint32_t word) {
    return word;
  }

  // Copies *from to *slot, in team scratch; the copies a thread made are in
  // place once it calls wait_for_copies_to_scratch.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy_to_scratch(T* slot,
                                                          const T* from) {
    *slot = *from;
  }
  KOKKOS_FORCEINLINE_FUNCTION static void wait_for_copies_to_scratch() {}

  // Calls f(lane) for each lane of `lanes` this thread takes. TeamLanes, if
  // not 0, is the team's size, `lanes` a TeamThreadRange of that extent.
  template <int TeamLanes, class Lanes, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_lane(const Lanes& lanes,
                                                        const F& f) {
    Kokkos::parallel_for(lanes, f);
  }

  // Reduces f(lane, sums) over `lanes` (lane_count lanes, a team's threads
  // or, VectorLanes, a thread's vector lanes) into `result`, which every
  // lane receives. TeamLanes is as for for_each_lane.
  template <bool VectorLanes, int TeamLanes, class Lanes, class F, class Sums>
  KOKKOS_FORCEINLINE_FUNCTION static void reduce_over_lanes(const Lanes& lanes,
                                                            int /*lane_count*/,
                                                            const F& f,
                                                            Sums& result) {
    Kokkos::parallel_reduce(lanes, f, result);
  }

  // The most teams that may share a row, each waiting for the others (see
  // RowSplit): such teams must all run at once, which Kokkos alone does not
  // guarantee, so rows are not split.
  template <class ExecutionSpace>
  static int max_teams_per_row(const ExecutionSpace&) {
    return 1;
  }

  // Whether rows of T that do not start on a Pack are read as Packs shifted
  // by the rows' lead (ShiftedPackRows), rather than element by element.
  template <class T>
  static constexpr bool reads_shifted_packs() {
    return true;
  }

  // Whether a team may hold its rows in team scratch instead of registers.
  static constexpr bool holds_rows_in_scratch = false;

  // The LaunchBounds of a kernel of at most MaxThreads threads a team that
  // needs about Registers registers a thread.
  template <unsigned MaxThreads, unsigned /*Registers*/>
  using launch_bounds = Kokkos::LaunchBounds<MaxThreads, 1>;
};

}  // namespace KokkosRMSNorm::Impl

#endif
