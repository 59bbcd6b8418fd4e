// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_PARTIALSUMS_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_PARTIALSUMS_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The sum over Packs [begin, end) of the terms that add(partial, j) adds to
// `partial` (Width of them, one a value of Pack j), kept in packs_a_step x
// Width independent partial sums (partial[s] for Packs s, s + packs_a_step,
// ...) so that the compiler holds them in vector registers without
// reordering float additions, which it may not do (it does: LOG 59); they
// are added in one fixed order at the end. 16 partial sums in all: an
// AVX-512 register of floats.
template <class Accumulation, int Width, class AddPack>
KOKKOS_FORCEINLINE_FUNCTION Accumulation sum_in_partials(int begin, int end,
                                                         const AddPack& add) {
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
  Accumulation sum = 0;
  for (int step = 0; step < packs_a_step; ++step) {
    for (int k = 0; k < Width; ++k) {
      sum += partial[step][k];
    }
  }
  return sum;
}

}  // namespace KokkosRMSNorm::Impl

#endif
