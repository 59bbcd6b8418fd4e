// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTKERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "../../KokkosRMSNorm_RowSums.hpp"

namespace KokkosRMSNorm::Impl {

// Rows normalized by the host's cores, a block of whole rows a thread, with
// no team and so no barrier: each row is swept twice, the second time from
// cache. The sum of squares keeps packs_a_step x width independent partial
// sums (partial[s] for Packs s, s + packs_a_step, ...), so that the compiler
// holds them in vector registers without reordering float additions, which
// it may not do (it does: LOG 59); they are added in one fixed order at the
// end of the row. Where each row has a quantization scale, a third sweep
// (from cache) finds the row's largest |y| first. Backend gives the loads
// and the rounding.
template <class Backend, class Math>
struct HostRowsKernel {
  using accumulation_type = typename Math::accumulation_type;
  static constexpr int width = Math::width;
  // Packs a step: 16 partial sums in all, an AVX-512 register of floats.
  static constexpr int packs_a_step = width >= 16 ? 1 : 16 / width;

  Math math;
  std::size_t rows_per_block;

  KOKKOS_INLINE_FUNCTION void operator()(std::size_t block) const {
    const std::size_t first = block * rows_per_block;
    const std::size_t rows = math.rows();
    const std::size_t end =
        first + rows_per_block < rows ? first + rows_per_block : rows;
    for (std::size_t row = first; row < end; ++row) {
      normalize(row);
    }
  }

  KOKKOS_INLINE_FUNCTION void normalize(std::size_t row) const {
    const int packs = static_cast<int>(math.packs_per_row());
    accumulation_type partial[packs_a_step][width] = {};
    const auto add_squares = [&](int step, const auto& pack) {
      for (int k = 0; k < width; ++k) {
        const auto value = static_cast<accumulation_type>(pack.lane[k]);
        partial[step][k] += value * value;
      }
    };
    int j = 0;
    for (; j + packs_a_step <= packs; j += packs_a_step) {
      for (int step = 0; step < packs_a_step; ++step) {
        add_squares(step, math.template load<Backend>(row, j + step));
      }
    }
    // The last packs % packs_a_step Packs (step < packs_a_step, stated so
    // that g++ sees partial's bound where packs is a constant).
    for (int step = 0; step < packs_a_step && j < packs; ++j, ++step) {
      add_squares(step, math.template load<Backend>(row, j));
    }
    accumulation_type sum_of_squares = 0;
    for (int step = 0; step < packs_a_step; ++step) {
      for (int k = 0; k < width; ++k) {
        sum_of_squares += partial[step][k];
      }
    }
    const accumulation_type rstd = math.rstd(sum_of_squares);
    math.store_rstd(row, rstd);
    const auto factors = [&](int pack_index) {
      return math.weight.template convert<accumulation_type>(
          math.weight_at(row, pack_index));
    };
    accumulation_type largest = 0;  // |y| at most, where a row has a scale
    if constexpr (Math::scales_each_row) {
      for (j = 0; j < packs; ++j) {
        largest = Larger::apply(
            largest,
            math.largest_magnitude(math.reload(row, j), rstd, factors(j)));
      }
      math.store_row_scale(row, largest);
    }
    const accumulation_type multiplier = math.multiplier(largest);
    for (j = 0; j < packs; ++j) {
      math.template store_scaled<Backend>(row, j, math.reload(row, j), rstd,
                                          factors(j), multiplier);
    }
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
