// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_HOSTKERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "../../KokkosRMSNorm_Pack.hpp"
#include "../../KokkosRMSNorm_RowSums.hpp"
#include "KokkosRMSNorm_PartialSums.hpp"

namespace KokkosRMSNorm::Impl {

// Rows normalized by the host's cores with no barrier a CPU does not need:
// a block of whole rows a thread (a RangePolicy over blocks), or, for rows
// longer than one core's L2 holds beside their output and weight, a row a
// team whose threads each take one contiguous part of it (a TeamPolicy,
// one barrier a sweep). Each part is swept twice, the second time from
// cache (with a residual, h = x + residual is stored in a sweep of its
// own first), the sum of squares in independent partial sums
// (sum_in_partials). Where each row has a quantization scale, a third sweep
// (from cache) finds the row's largest |y| first. Backend gives the loads
// and the rounding.
template <class Backend, class Math>
struct HostRowsKernel {
  using accumulation_type = typename Math::accumulation_type;
  static constexpr int width = Math::width;

  Math math;
  std::size_t rows_per_block;

  // A block of rows, one thread.
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t block) const {
    const std::size_t first = block * rows_per_block;
    const std::size_t rows = math.rows();
    const std::size_t end =
        first + rows_per_block < rows ? first + rows_per_block : rows;
    const int packs = static_cast<int>(math.packs_per_row());
    for (std::size_t row = first; row < end; ++row) {
      const accumulation_type rstd = math.rstd(sum_of_squares(row, 0, packs));
      math.store_rstd(row, rstd);
      accumulation_type largest = 0;  // |y| at most, where a row has a scale
      if constexpr (Math::scales_each_row) {
        largest = rstd * largest_product(row, 0, packs);
        math.store_row_scale(row, largest);
      }
      store_scaled(row, 0, packs, rstd, math.multiplier(largest));
    }
  }

  // A row, the team's threads a part each: TeamThreadRange gives a part to
  // the same thread in every sweep, so that each sweeps its part from its
  // own cache.
  template <class TeamMember>
  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& member) const {
    const std::size_t row = member.league_rank();
    const int parts = member.team_size();
    const auto packs = static_cast<long long>(math.packs_per_row());
    const auto first = [&](int part) {
      return static_cast<int>(packs * part / parts);
    };
    accumulation_type sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, parts),
        [&](int part, accumulation_type& partial_sum) {
          partial_sum += sum_of_squares(row, first(part), first(part + 1));
        },
        sum);
    const accumulation_type rstd = math.rstd(sum);
    Kokkos::single(Kokkos::PerTeam(member),
                   [&]() { math.store_rstd(row, rstd); });
    RowMaxima<accumulation_type, 1> largest;
    if constexpr (Math::scales_each_row) {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(member, parts),
          [&](int part, RowMaxima<accumulation_type, 1>& partial_largest) {
            partial_largest.join(
                0, largest_product(row, first(part), first(part + 1)));
          },
          largest);
      largest[0] *= rstd;
      Kokkos::single(Kokkos::PerTeam(member),
                     [&]() { math.store_row_scale(row, largest[0]); });
    }
    const accumulation_type multiplier = math.multiplier(largest[0]);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, parts), [&](int part) {
      store_scaled(row, first(part), first(part + 1), rstd, multiplier);
    });
  }

  // The sum of the squares of Packs [begin, end) of `row`.
  KOKKOS_INLINE_FUNCTION accumulation_type sum_of_squares(std::size_t row,
                                                          int begin,
                                                          int end) const {
    // h = x + residual is stored for the whole part before its squares are
    // summed from cache: g++ vectorizes neither in one loop (log 83).
    if constexpr (Math::adds_residual) {
      for (int j = begin; j < end; ++j) {
        math.template load<Backend>(row, j);
      }
    }
    const auto first_read = [&](int j) {
      if constexpr (Math::adds_residual) {
        return math.reload(row, j);
      } else {
        return math.template load<Backend>(row, j);
      }
    };
    return sum_in_partials<accumulation_type, width>(
        begin, end, [&](accumulation_type(&partial)[width], int j) {
          const auto pack = first_read(j);
          for (int k = 0; k < width; ++k) {
            const auto value =
                Backend::template widened<accumulation_type>(pack, k);
            partial[k] += value * value;
          }
        });
  }

  KOKKOS_INLINE_FUNCTION auto factors(std::size_t row, int pack_index) const {
    return math.weight.template convert<Backend, accumulation_type>(
        math.weight_at(row, pack_index));
  }

  // The largest |h * weight factor| of Packs [begin, end) of `row`, which
  // times rstd is their largest |y| (see RowMath::largest_product).
  KOKKOS_INLINE_FUNCTION accumulation_type largest_product(std::size_t row,
                                                           int begin,
                                                           int end) const {
    // A maximum is the same bits in any order, NaNs ignored alike.
    return reduce_in_partials<accumulation_type, width>(
        begin, end,
        [&](accumulation_type(&partial)[width], int j) {
          accumulation_type values[width];
          math.template scaled<Backend>(math.reload(row, j),
                                        accumulation_type(1), factors(row, j),
                                        values);
          for (int k = 0; k < width; ++k) {
            partial[k] = Backend::larger_magnitude(partial[k], values[k]);
          }
        },
        [](accumulation_type a, accumulation_type b) {
          return Larger::apply(a, b);
        });
  }

  // Stores y of Packs [begin, end) of `row`: quantized, 64 values at a time,
  // whose conversion the compiler then vectorizes across Packs in vectors as
  // wide as their one-byte codes: 64 fill 512 bits, 16 filled 128, and a
  // Pack's values alone were converted one by one (logs 90, 92).
  KOKKOS_INLINE_FUNCTION void store_scaled(std::size_t row, int begin, int end,
                                           accumulation_type rstd,
                                           accumulation_type multiplier) const {
    constexpr int step = Math::quantizes && width < 64 ? 64 / width : 1;
    int j = begin;
    for (; j + step <= end; j += step) {
      store_packs<step>(row, j, rstd, multiplier);
    }
    for (; j < end; ++j) {
      store_packs<1>(row, j, rstd, multiplier);
    }
  }

  // Stores y of Packs [j, j + Packs) of `row`.
  template <int Packs>
  KOKKOS_INLINE_FUNCTION void store_packs(std::size_t row, int j,
                                          accumulation_type rstd,
                                          accumulation_type multiplier) const {
    accumulation_type values[Packs][width];
    for (int s = 0; s < Packs; ++s) {
      math.template y_values<Backend>(math.reload(row, j + s), rstd,
                                      factors(row, j + s), multiplier,
                                      values[s]);
    }
    math.template store_values<Backend, Packs>(row, j, values);
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
