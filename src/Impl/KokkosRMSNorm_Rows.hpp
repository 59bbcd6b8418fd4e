// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWS_HPP
#define KOKKOSRMSNORM_IMPL_ROWS_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
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
// the data's rank minus one), so row i of each refers to one (b, s). Rank-3
// rows that no order spaces evenly for every argument (the heads of a fused
// qkv buffer) are HeadRows, batch-major; rank-4 Views are first merged to
// rank 3 (tokens_merged).
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

// The first order in which every given row argument (with RowRank leading
// extents; None takes any) is evenly spaced, if there is one.
template <unsigned RowRank, class... Views>
std::optional<RowOrder> shared_row_order(const Views&... views) {
  for (RowOrder order : {RowOrder::batch_major, RowOrder::sequence_major}) {
    if ((has_row_order<RowRank>(views, order) && ...)) {
      return order;
    }
  }
  return std::nullopt;
}

// The order both x and y can take; throws std::invalid_argument if none.
template <class XView, class YView>
RowOrder common_row_order(const char* function, const XView& x,
                          const YView& y) {
  const auto order = shared_row_order<XView::rank - 1>(x, y);
  if (!order) {
    throw_invalid(function,
                  "the (batch, sequence) rows of x extents " + extents_of(x) +
                      " and y extents " + extents_of(y) +
                      " are not evenly spaced in one common order "
                      "(batch-major or sequence-major); pass a rank-2 View "
                      "of the rows instead");
  }
  return *order;
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

// The row length View's type fixes (a static last extent, as in
// View<T*[4096]>), else 0.
template <class View>
inline constexpr std::size_t static_row_length_v =
    View::static_extent(View::rank - 1);

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

// The order in which x's (batch, sequence) pairs are evenly spaced, which
// a rank-4 x (batch, sequence, heads, N) merges them into tokens in; throws
// std::invalid_argument if none.
template <class XView>
RowOrder token_order(const char* function, const XView& x) {
  const auto order = shared_row_order<2>(x);
  if (!order) {
    throw_invalid(function,
                  "x extents " + extents_of(x) +
                      ": its (batch, sequence) pairs are not evenly spaced "
                      "in one order (batch-major or sequence-major), as the "
                      "tokens of rank-4 rows must be");
  }
  return *order;
}

// A row argument of rank 4 (batch, sequence, heads, N), or one value a row
// of one (batch, sequence, heads), with batch and sequence merged into one
// extent of tokens in `order` (x's token_order): the rows of a rank-3 View.
// Throws std::invalid_argument where they are not evenly spaced in it.
template <class View>
auto tokens_merged(const char* function, const char* name, const View& view,
                   RowOrder order) {
  if constexpr (is_none_v<View>) {
    return None();
  } else {
    constexpr unsigned rank = View::rank;
    static_assert(rank == 3 || rank == 4);
    require_row_order<2>(function, name, view, order);
    const std::size_t batch = view.extent(0), sequence = view.extent(1);
    Kokkos::LayoutStride layout;
    layout.dimension[0] = batch * sequence;
    // The distance between consecutive tokens: of the inner one of batch
    // and sequence, unless it is a single one.
    if (order == RowOrder::batch_major) {
      layout.stride[0] = sequence > 1 ? view.stride(1) : view.stride(0);
    } else {
      layout.stride[0] = batch > 1 ? view.stride(0) : view.stride(1);
    }
    layout.dimension[1] = view.extent(2);
    layout.stride[1] = view.stride(2);
    if constexpr (rank == 4) {
      layout.dimension[2] = view.extent(3);
      layout.stride[2] = view.stride(3);
    }
    using T = typename View::value_type;
    using Merged =
        Kokkos::View<std::conditional_t<rank == 4, T***, T**>,
                     Kokkos::LayoutStride, typename View::memory_space,
                     Kokkos::MemoryUnmanaged>;
    return Merged(view.data(), layout);
  }
}

inline None as_rows(None, RowOrder) {
  return {};
}
inline None as_row_values(None, RowOrder) {
  return {};
}

}  // namespace KokkosRMSNorm::Impl

#endif
