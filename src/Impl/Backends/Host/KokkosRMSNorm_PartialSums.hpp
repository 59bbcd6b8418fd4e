// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_PARTIALSUMS_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_PARTIALSUMS_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The terms that add(partial, j) joins into `partial` (Width of them, one a
// value of Pack j) over Packs [begin, end), joined by `join`, starting from
// 0: kept in packs_a_step x Width independent partials (partial[s] for Packs
// s, s + packs_a_step, ...) so that the compiler holds them in vector
// registers without reordering float additions, which it may not do (it
// does: LOG 59), or a chain of selects (log 88); they are joined in one
// fixed order at the end. 16 partials in all: an AVX-512 register of
// floats.
template <class Accumulation, int Width, class AddPack, class Join>
KOKKOS_FORCEINLINE_FUNCTION Accumulation reduce_in_partials(int begin, int end,
                                                            const AddPack& add,
                                                            const Join& join) {
  constexpr int packs_a_step = Width >= 16 ? 1 : 16 / Width;
  Accumulation partial[packs_a_step][Width] = {};
  int j = begin;
  for (; j + packs_a_step <= end; j += packs_a_step) {
    for (int step = 0; step < packs_a_step; ++step) {
      add(partial[step], j + step);
    }
  }
  // The last (end - begin) % packs_a_step Packs (step < packs_a_step, stated
  // so that g++ sees partial's bound where end is a constant).
  for (int step = 0; step < packs_a_step && j < end; ++j, ++step) {
    add(partial[step], j);
  }
  Accumulation joined = 0;
  for (int step = 0; step < packs_a_step; ++step) {
    for (int k = 0; k < Width; ++k) {
      joined = join(joined, partial[step][k]);
    }
  }
  return joined;
}

// reduce_in_partials of sums.
template <class Accumulation, int Width, class AddPack>
KOKKOS_FORCEINLINE_FUNCTION Accumulation sum_in_partials(int begin, int end,
                                                         const AddPack& add) {
  return reduce_in_partials<Accumulation, Width>(
      begin, end, add,
      [](Accumulation sum, Accumulation term) { return sum + term; });
}

}  // namespace KokkosRMSNorm::Impl

#endif
