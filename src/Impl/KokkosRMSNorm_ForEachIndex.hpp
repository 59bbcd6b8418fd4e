// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_FOREACHINDEX_HPP
#define KOKKOSRMSNORM_IMPL_FOREACHINDEX_HPP

#include <utility>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

template <class F, int... Index>
KOKKOS_FORCEINLINE_FUNCTION void for_each_index(
    F& f, std::integer_sequence<int, Index...>) {
  (f(Index), ...);
}

// Calls f(0), ..., f(Count - 1): in a loop, or unrolled in the source
// (UnrolledInSource) where the compiler would leave the loop rolled, and a
// run-time index would move what a lane holds to local memory.
template <int Count, bool UnrolledInSource, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_index(F&& f) {
  if constexpr (UnrolledInSource) {
    for_each_index(f, std::make_integer_sequence<int, Count>());
  } else {
    for (int index = 0; index < Count; ++index) {
      f(index);
    }
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
