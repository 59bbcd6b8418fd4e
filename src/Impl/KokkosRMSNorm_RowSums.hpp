// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWSUMS_HPP
#define KOKKOSRMSNORM_IMPL_ROWSUMS_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// Values of the Rows rows a lane holds at once, which the lanes join
// together (a backend's reduce_over_lanes) through Join, row by row: sums
// of squares, largest magnitudes, or both (see below). Kokkos's reductions
// join values through +=, so += is the join; all start from zero, the
// identity of a sum and of the largest of magnitudes, never negative.
template <class T, int Rows, class Join>
struct RowReduction {
  using value_type = T;
  static constexpr int rows = Rows;

  T value[Rows] = {};

  KOKKOS_INLINE_FUNCTION T& operator[](int row) { return value[row]; }
  KOKKOS_INLINE_FUNCTION const T& operator[](int row) const {
    return value[row];
  }

  KOKKOS_INLINE_FUNCTION void join(int row, T other) {
    value[row] = Join::apply(row, value[row], other);
  }

  KOKKOS_INLINE_FUNCTION RowReduction& operator+=(const RowReduction& other) {
    for (int row = 0; row < Rows; ++row) {
      join(row, other.value[row]);
    }
    return *this;
  }
  // Kokkos 3.4 joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(
      const volatile RowReduction& other) volatile {
    for (int row = 0; row < Rows; ++row) {
      value[row] = Join::apply(row, value[row], other.value[row]);
    }
  }
};

struct Plus {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a + b;
  }
};

// The larger of two magnitudes, a NaN only where both are: the same either
// way round, so that both lanes of a shuffle's pair get the same bits.
struct Larger {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a >= b || b != b ? a : b;
  }
};

// Every row joined by Op.
template <class Op>
struct EveryRow {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(int, T a, T b) {
    return Op::apply(a, b);
  }
};

// Rows [0, Sums) summed, the rows after them joined by Larger.
template <int Sums>
struct SumsThenLargest {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(int row, T a, T b) {
    return row < Sums ? Plus::apply(a, b) : Larger::apply(a, b);
  }
};

template <class T, int Rows>
using RowSums = RowReduction<T, Rows, EveryRow<Plus>>;

template <class T, int Rows>
using RowMaxima = RowReduction<T, Rows, EveryRow<Larger>>;

// The sums of squares of Rows rows, then their largest magnitudes: what one
// reduction over the lanes gives a row that has a quantization scale.
template <class T, int Rows>
using RowSumsAndMaxima = RowReduction<T, 2 * Rows, SumsThenLargest<Rows>>;

}  // namespace KokkosRMSNorm::Impl

namespace Kokkos {

template <class T, int Rows, class Join>
struct reduction_identity<KokkosRMSNorm::Impl::RowReduction<T, Rows, Join>> {
  KOKKOS_FORCEINLINE_FUNCTION static KokkosRMSNorm::Impl::RowReduction<T, Rows,
                                                                       Join>
  sum() {
    return {};
  }
};

}  // namespace Kokkos

#endif
