#ifndef KOKKOSRMSNORM_IMPL_ROWS_HPP
#define KOKKOSRMSNORM_IMPL_ROWS_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm::Impl {

// A rank-2 or rank-3 View seen as rows x N, N its last extent, over the same
// memory. The rows of a rank-3 View (batch, sequence, N) are its (batch,
// sequence) pairs, taken in an order that spaces them evenly in memory:
// batch-major (row b * S + s: LayoutRight and its subviews along N) or
// sequence-major (row b + s * B: LayoutLeft). x and y take the same order,
// so row i of x is normalized into row i of y.
enum class RowOrder { batch_major, sequence_major };

template <class View>
bool has_row_order(const View& view, RowOrder order) {
  if constexpr (View::rank == 2) {
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
RowOrder common_row_order(const XView& x, const YView& y) {
  for (RowOrder order : {RowOrder::batch_major, RowOrder::sequence_major}) {
    if (has_row_order(x, order) && has_row_order(y, order)) {
      return order;
    }
  }
  throw_invalid("the (batch, sequence) rows of x extents " + extents_of(x) +
                " and y extents " + extents_of(y) +
                " are not evenly spaced in one common order (batch-major or "
                "sequence-major); pass a rank-2 View of the rows instead");
}

template <class View>
using RowsOf =
    Kokkos::View<typename View::value_type**, Kokkos::LayoutStride,
                 typename View::memory_space, Kokkos::MemoryUnmanaged>;

template <class View>
RowsOf<View> as_rows(const View& view, RowOrder order) {
  constexpr unsigned last = View::rank - 1;
  std::size_t rows = view.extent(0), row_stride = view.stride(0);
  if constexpr (View::rank == 3) {
    rows *= view.extent(1);
    if (order == RowOrder::batch_major) {
      row_stride = view.stride(1);
    }
  }
  return RowsOf<View>(view.data(),
                      Kokkos::LayoutStride(rows, row_stride, view.extent(last),
                                           view.stride(last)));
}

}  // namespace KokkosRMSNorm::Impl

#endif
