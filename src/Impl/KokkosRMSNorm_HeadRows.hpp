// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_HEADROWS_HPP
#define KOKKOSRMSNORM_IMPL_HEADROWS_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Divider.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Pack.hpp"

// Rows whose two leading indices are spaced independently: the q or k heads
// of a token where they lie in a fused qkv buffer, a rank-3 View (tokens,
// heads, N) of strides (qkv row pitch, N, 1). No rank-2 View spans them, so
// the kernels address row i as (i / heads, i % heads), dividing by a
// multiply and shift; rows evenly spaced in memory stay rank-2 Views, which
// need no division (see Rows.hpp).

namespace KokkosRMSNorm::Impl {

template <class View3>
struct HeadRows {
  using value_type = typename View3::value_type;
  using non_const_value_type = typename View3::non_const_value_type;
  using memory_space = typename View3::memory_space;

  View3 heads;       // (tokens, heads, N)
  Divider by_heads;  // by heads.extent(1)

  KOKKOS_INLINE_FUNCTION typename View3::reference_type operator()(
      std::size_t row, std::size_t j) const {
    const std::size_t token = by_heads.quotient(row);
    return heads(token, row - token * by_heads.divisor(), j);
  }

  // As rows x N.
  KOKKOS_INLINE_FUNCTION std::size_t extent(int dimension) const {
    return dimension == 0 ? heads.extent(0) * heads.extent(1) : heads.extent(2);
  }
};

// One value a row of HeadRows (rstd, a quantization's scales): a rank-2
// View (tokens, heads) of any strides, value i that of row i.
template <class View2>
struct HeadValues {
  using value_type = typename View2::value_type;
  using non_const_value_type = typename View2::non_const_value_type;

  View2 values;
  Divider by_heads;  // by values.extent(1)

  KOKKOS_INLINE_FUNCTION typename View2::reference_type operator()(
      std::size_t row) const {
    const std::size_t token = by_heads.quotient(row);
    return values(token, row - token * by_heads.divisor());
  }
};

template <class Rows>
inline constexpr bool is_head_rows_v = false;
template <class View3>
inline constexpr bool is_head_rows_v<HeadRows<View3>> = true;

template <class View>
using HeadsOf =
    Kokkos::View<typename View::value_type***, Kokkos::LayoutStride,
                 typename View::memory_space, Kokkos::MemoryUnmanaged>;

// A rank-3 row argument as HeadRows (None stays None).
template <class View>
auto as_head_rows(const View& view) {
  if constexpr (is_none_v<View>) {
    return None();
  } else {
    const Kokkos::LayoutStride layout(view.extent(0), view.stride(0),
                                      view.extent(1), view.stride(1),
                                      view.extent(2), view.stride(2));
    return HeadRows<HeadsOf<View>>{HeadsOf<View>(view.data(), layout),
                                   Divider(view.extent(1))};
  }
}

// A rank-2 View of one value a row of HeadRows as HeadValues (None stays
// None).
template <class View>
auto as_head_values(const View& view) {
  if constexpr (is_none_v<View>) {
    return None();
  } else {
    using Values =
        Kokkos::View<typename View::value_type**, Kokkos::LayoutStride,
                     typename View::memory_space, Kokkos::MemoryUnmanaged>;
    const Kokkos::LayoutStride layout(view.extent(0), view.stride(0),
                                      view.extent(1), view.stride(1));
    return HeadValues<Values>{Values(view.data(), layout),
                              Divider(view.extent(1))};
  }
}

// Whether every row can be read as aligned Packs of Width: unit element
// stride, whole Packs a row, both leading strides whole Packs and the first
// row aligned.
template <int Width, class View3>
bool rows_fit_packs(const HeadRows<View3>& rows) {
  const View3& heads = rows.heads;
  using T = typename View3::non_const_value_type;
  return heads.stride(2) == 1 && heads.extent(2) % Width == 0 &&
         (heads.extent(0) <= 1 || heads.stride(0) % Width == 0) &&
         (heads.extent(1) <= 1 || heads.stride(1) % Width == 0) &&
         is_aligned(heads.data(), sizeof(T) * Width);
}

template <class View3>
KOKKOS_INLINE_FUNCTION bool packs_contiguous(const HeadRows<View3>& rows) {
  return rows.heads.stride(2) == 1;
}

// The same rows as HeadRows of Packs of Width.
template <int Width, class View3>
auto as_pack_rows(const HeadRows<View3>& rows) {
  const View3& heads = rows.heads;
  using Packs = Kokkos::View<PackOf<typename View3::value_type, Width>***,
                             Kokkos::LayoutStride, typename View3::memory_space,
                             Kokkos::MemoryUnmanaged>;
  const Kokkos::LayoutStride layout(heads.extent(0), heads.stride(0) / Width,
                                    heads.extent(1), heads.stride(1) / Width,
                                    heads.extent(2) / Width, heads.stride(2));
  return HeadRows<Packs>{
      Packs(reinterpret_cast<typename Packs::value_type*>(heads.data()),
            layout),
      rows.by_heads};
}

}  // namespace KokkosRMSNorm::Impl

#endif
