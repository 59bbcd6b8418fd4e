// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWS_HPP
#define KOKKOSRMSNORM_IMPL_ROWS_HPP

#include <cstddef>
#include <utility>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm::Impl {

// A rank-2 or rank-3 View seen as rows x N, N its last extent, over the same
// memory. The rows of a rank-3 View (batch, sequence, N) are its (batch,
// sequence) pairs, taken in an order that spaces them evenly in memory:
// batch-major (row b * S + s: LayoutRight and its subviews along N) or
// sequence-major (row b + s * B: LayoutLeft). Every row argument of a call
// takes the same order, and so does a View of one value per row (rstd, of
// the data's rank minus one), so row i of each refers to one (b, s).
enum class RowOrder { batch_major, sequence_major };

// Whether the leading extents of `view`, which has RowRank of them (1, or 2
// for batch and sequence), are evenly spaced in `order`.
template <unsigned RowRank, class View>
bool has_row_order(const View& view, RowOrder order) {
  if constexpr (RowRank == 1 || is_none_v<View>) {
    return true;
  } else if (order == RowOrder::batch_major) {
    return view.extent(0) <= 1 ||
           view.stride(0) == view.extent(1) * view.stride(1);
  } else {
    return view.extent(1) <= 1 ||
           view.stride(1) == view.extent(0) * view.stride(0);
  }
}

// The order both x and y can take; throws std::invalid_argument if none.
template <class XView, class YView>
RowOrder common_row_order(const char* function, const XView& x,
                          const YView& y) {
  constexpr unsigned row_rank = XView::rank - 1;
  for (RowOrder order : {RowOrder::batch_major, RowOrder::sequence_major}) {
    if (has_row_order<row_rank>(x, order) &&
        has_row_order<row_rank>(y, order)) {
      return order;
    }
  }
  throw_invalid(function,
                "the (batch, sequence) rows of x extents " + extents_of(x) +
                    " and y extents " + extents_of(y) +
                    " are not evenly spaced in one common order (batch-major "
                    "or sequence-major); pass a rank-2 View of the rows "
                    "instead");
}

// Throws std::invalid_argument unless `view`, a further argument with RowRank
// leading extents, can take the order of x and y.
template <unsigned RowRank, class View>
void require_row_order(const char* function, const char* name, const View& view,
                       RowOrder order) {
  if constexpr (!is_none_v<View>) {
    if (!has_row_order<RowRank>(view, order)) {
      throw_invalid(function,
                    std::string(name) + " extents " + extents_of(view) +
                        " do not take the row order of x and y (" +
                        (order == RowOrder::batch_major ? "batch-major"
                                                        : "sequence-major") +
                        "); pass a View of x's layout");
    }
  }
}

// The number of rows of `view` and the distance between them.
template <unsigned RowRank, class View>
std::pair<std::size_t, std::size_t> rows_and_stride(const View& view,
                                                    RowOrder order) {
  if constexpr (RowRank == 1) {
    return {view.extent(0), view.stride(0)};
  } else {
    return {view.extent(0) * view.extent(1),
            order == RowOrder::batch_major ? view.stride(1) : view.stride(0)};
  }
}

template <class View>
using RowsOf =
    Kokkos::View<typename View::value_type**, Kokkos::LayoutStride,
                 typename View::memory_space, Kokkos::MemoryUnmanaged>;

template <class View>
using RowValuesOf =
    Kokkos::View<typename View::value_type*, Kokkos::LayoutStride,
                 typename View::memory_space, Kokkos::MemoryUnmanaged>;

// A row argument as a rank-2 View of rows.
template <class View>
RowsOf<View> as_rows(const View& view, RowOrder order) {
  constexpr unsigned last = View::rank - 1;
  const auto [rows, row_stride] = rows_and_stride<last>(view, order);
  return RowsOf<View>(view.data(),
                      Kokkos::LayoutStride(rows, row_stride, view.extent(last),
                                           view.stride(last)));
}

// One value per row as a rank-1 View.
template <class View>
RowValuesOf<View> as_row_values(const View& view, RowOrder order) {
  const auto [rows, row_stride] = rows_and_stride<View::rank>(view, order);
  return RowValuesOf<View>(view.data(), Kokkos::LayoutStride(rows, row_stride));
}

inline None as_rows(None, RowOrder) {
  return {};
}
inline None as_row_values(None, RowOrder) {
  return {};
}

}  // namespace KokkosRMSNorm::Impl

#endif
