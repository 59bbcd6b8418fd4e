// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWSUMS_HPP
#define KOKKOSRMSNORM_IMPL_ROWSUMS_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The sums of squares of the Rows rows a lane holds at once, reduced over
// the lanes together (a backend's reduce_over_lanes).
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
