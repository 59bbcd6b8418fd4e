// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTBACKWARDKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTBACKWARDKERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_PartialSums.hpp"

namespace KokkosRMSNorm::Impl {

// Pack j of `row` of `rows` as row[j], as a pointer to a row's first Pack
// gives it where a row's Packs lie contiguous.
template <class Rows>
struct RowOf {
  const Rows& rows;
  std::size_t row;
  KOKKOS_INLINE_FUNCTION decltype(auto) operator[](int j) const {
    return rows(row, j);
  }
};

// The backward pass (a BackwardPass) on the host's cores: a group of rows a
// thread, each row swept twice, the second time from cache. The first sweep
// sums g * x in independent partial sums (sum_in_partials, as
// HostRowsKernel sums squares); the second stores dx and adds the row's terms
// to the group's partial weight gradient. The GPU team kernel, run as teams of
// one thread, stayed scalar on the host (log 86). Where the Packs of each row
// of dy, x and dx lie contiguous, a row is read and written through pointers
// to its first Packs, which the compiler vectorizes across Packs: through
// the Views each index is multiplied by a stride known at run time only, and
// rows of one-value Packs (odd N) ran scalar (log 94).
template <class Backend, class Pass>
struct HostBackwardKernel {
  using pack = typename Pass::pack;
  using value_type = typename Pass::value_type;
  using accumulation_type = typename Pass::accumulation_type;
  static constexpr int width = Pass::width;

  Pass pass;

  KOKKOS_INLINE_FUNCTION void operator()(std::size_t group) const {
    const std::size_t first = group * pass.rows_per_group;
    const std::size_t end = first + pass.rows_per_group;
    const std::size_t last = end < pass.x.extent(0) ? end : pass.x.extent(0);
    const int packs = static_cast<int>(pass.x.extent(1));
    const bool contiguous = packs_contiguous(pass.dy) &&
                            packs_contiguous(pass.x) &&
                            packs_contiguous(pass.dx);
    for (std::size_t row = first; row < last; ++row) {
      if (contiguous) {
        backward_row(row, group, row == first, packs, &pass.dy(row, 0),
                     &pass.x(row, 0), &pass.dx(row, 0));
      } else {
        backward_row(row, group, row == first, packs,
                     RowOf<decltype(pass.dy)>{pass.dy, row},
                     RowOf<decltype(pass.x)>{pass.x, row},
                     RowOf<decltype(pass.dx)>{pass.dx, row});
      }
    }
  }

  // The backward pass of `row`, whose Pack j is dy[j], x[j] and dx[j].
  template <class DYRow, class XRow, class DXRow>
  KOKKOS_INLINE_FUNCTION void backward_row(std::size_t row, std::size_t group,
                                           bool first_of_group, int packs,
                                           const DYRow& dy, const XRow& x,
                                           const DXRow& dx) const {
    const accumulation_type r = pass.rstd(row);
    const accumulation_type c =
        r * r * r * gradient_dot_x(packs, dy, x) * pass.inverse_n;
    if (first_of_group) {
      store<true>(group, packs, r, c, dy, x, dx);
    } else {
      store<false>(group, packs, r, c, dy, x, dx);
    }
  }

  // The sum over `row` of g * x.
  template <class DYRow, class XRow>
  KOKKOS_INLINE_FUNCTION accumulation_type gradient_dot_x(int packs,
                                                          const DYRow& dy,
                                                          const XRow& x) const {
    return sum_in_partials<accumulation_type, width>(
        0, packs, [&](accumulation_type(&partial)[width], int j) {
          accumulation_type g[width];
          pass.template gradient<Backend>(j, dy[j], g);
          const pack x_pack = x[j];
          for (int w = 0; w < width; ++w) {
            partial[w] +=
                g[w] * Backend::template widened<accumulation_type>(x_pack, w);
          }
        });
  }

  // Stores the row's dx from its rstd `r` and correction `c` and, where the
  // pass sums them, its terms of the group's partial weight gradient: the
  // group's first row sets them, the others add theirs.
  template <bool FirstOfGroup, class DYRow, class XRow, class DXRow>
  KOKKOS_INLINE_FUNCTION void store(std::size_t group, int packs,
                                    accumulation_type r, accumulation_type c,
                                    const DYRow& dy, const XRow& x,
                                    const DXRow& dx) const {
    for (int j = 0; j < packs; ++j) {
      const pack dy_pack = dy[j], x_pack = x[j];
      accumulation_type g[width];
      pass.template gradient<Backend>(j, dy_pack, g);
      pack out;
      for (int w = 0; w < width; ++w) {
        out.lane[w] = Backend::template round_to<value_type>(
            r * g[w] -
            c * Backend::template widened<accumulation_type>(x_pack, w));
      }
      if constexpr (Pass::sums_weight) {
        auto& partial = pass.partials(group, j);
        for (int w = 0; w < width; ++w) {
          const accumulation_type term =
              Backend::template widened<accumulation_type>(dy_pack, w) *
              Backend::template widened<accumulation_type>(x_pack, w) * r;
          partial.lane[w] = FirstOfGroup ? term : partial.lane[w] + term;
        }
      }
      dx[j] = out;
    }
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
