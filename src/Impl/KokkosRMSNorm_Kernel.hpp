#ifndef KOKKOSRMSNORM_IMPL_KERNEL_HPP
#define KOKKOSRMSNORM_IMPL_KERNEL_HPP

#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_Lanes.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"

namespace KokkosRMSNorm::Impl {

// The arithmetic on rows of Packs, apart from how lanes share the rows:
// h = x (or x + residual, rounded to x's type and stored to sum), then
// y = h * rstd * weight factor, rstd = 1 / sqrt(sum(h^2) / N + eps), rstd
// stored to rstd_out. Absent operands are None.
template <class XRows, class ResidualRows, class SumRows, class Weight,
          class YRows, class RstdValues>
struct RowMath {
  using pack = typename YRows::non_const_value_type;
  using value_type = typename pack::value_type;
  using accumulation_type = accumulation_type_t<value_type>;
  static constexpr int width = pack::width;
  static constexpr bool adds_residual = !is_none_v<ResidualRows>;

  XRows x;
  ResidualRows residual;
  SumRows sum;
  Weight weight;
  YRows y;
  RstdValues rstd_out;
  accumulation_type eps;
  accumulation_type inverse_n;  // 1 / elements per row

  KOKKOS_INLINE_FUNCTION std::size_t rows() const { return x.extent(0); }
  KOKKOS_INLINE_FUNCTION std::size_t packs_per_row() const {
    return x.extent(1);
  }

  // Pack j of the row's h, which a lane reads first.
  KOKKOS_INLINE_FUNCTION pack load(std::size_t row, int j) const {
    if constexpr (adds_residual) {
      const pack a = x(row, j), b = residual(row, j);
      pack h;
      for (int k = 0; k < width; ++k) {
        h.lane[k] =
            static_cast<value_type>(static_cast<accumulation_type>(a.lane[k]) +
                                    static_cast<accumulation_type>(b.lane[k]));
      }
      sum(row, j) = h;
      return h;
    } else {
      return x(row, j);
    }
  }

  // The same Pack read again by the lane that loaded it, on a second sweep.
  KOKKOS_INLINE_FUNCTION pack reload(std::size_t row, int j) const {
    if constexpr (adds_residual) {
      return sum(row, j);
    } else {
      return x(row, j);
    }
  }

  KOKKOS_INLINE_FUNCTION static void add_squares(
      const pack& v, accumulation_type& sum_of_squares) {
    for (int k = 0; k < width; ++k) {
      const auto value = static_cast<accumulation_type>(v.lane[k]);
      sum_of_squares += value * value;
    }
  }

  KOKKOS_INLINE_FUNCTION accumulation_type
  rstd(accumulation_type sum_of_squares) const {
    return rsqrt(sum_of_squares * inverse_n + eps);
  }

  KOKKOS_INLINE_FUNCTION void store_rstd(std::size_t row,
                                         accumulation_type rstd) const {
    if constexpr (!is_none_v<RstdValues>) {
      rstd_out(row) = rstd;
    }
  }

  KOKKOS_INLINE_FUNCTION void store_scaled(std::size_t row, int j,
                                           const pack& h,
                                           accumulation_type rstd) const {
    accumulation_type values[width];
    for (int k = 0; k < width; ++k) {
      values[k] = static_cast<accumulation_type>(h.lane[k]) * rstd;
    }
    weight.scale(j, values);
    pack out;
    for (int k = 0; k < width; ++k) {
      out.lane[k] = static_cast<value_type>(values[k]);
    }
    y(row, j) = out;
  }
};

// The RowMath of rows of Packs of Width over the given rows (None where
// absent), weight argument and rstd values.
template <int Width, class XRows, class ResidualRows, class SumRows,
          class Weight, class YRows, class RstdValues>
auto make_row_math(const XRows& x, const ResidualRows& residual,
                   const SumRows& sum, const Weight& weight, const YRows& y,
                   const RstdValues& rstd, double eps) {
  using Math = RowMath<decltype(as_pack_rows<Width>(x)),
                       decltype(as_pack_rows<Width>(residual)),
                       decltype(as_pack_rows<Width>(sum)),
                       decltype(weight_factors<Width>(weight)),
                       decltype(as_pack_rows<Width>(y)), RstdValues>;
  using accumulation_type = typename Math::accumulation_type;
  return Math{
      as_pack_rows<Width>(x),
      as_pack_rows<Width>(residual),
      as_pack_rows<Width>(sum),
      weight_factors<Width>(weight),
      as_pack_rows<Width>(y),
      rstd,
      static_cast<accumulation_type>(eps),
      accumulation_type(1) / static_cast<accumulation_type>(x.extent(1))};
}

// Normalizes rows with lanes (see Lanes.hpp): the lanes of a team sharing
// one row (TeamPerRow), or the vector lanes of a team thread, each thread
// owning a row. Each lane holds PacksPerLane Packs in registers, loaded
// before any is used so that they are all in flight at once. A Resident
// row, which the lanes cover in one sweep, stays in registers between the
// sum of squares and the scaling, so x is read from memory once; a longer
// row is swept twice. Each lane runs once, so `held` is written and read by
// the same lane, and so is each element of sum.
template <int PacksPerLane, bool TeamPerRow, bool Resident,
          class ExecutionSpace, class Math>
struct RMSNormKernel : Math {
  using typename Math::accumulation_type;
  using typename Math::pack;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using Held = pack[PacksPerLane];
  static constexpr int packs_per_lane = PacksPerLane;
  static constexpr bool team_per_row = TeamPerRow;

  int rows_per_team;
  int vector_length;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(this->x.extent(1));
    if constexpr (TeamPerRow) {
      normalize(team_lanes(team), team.league_rank(), packs);
    } else {
      const std::size_t first = std::size_t(team.league_rank()) * rows_per_team;
      const VectorLanes<member_type, accumulation_type> lanes{team,
                                                              vector_length};
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team),
                           [&](int local) {
                             if (first + local < this->x.extent(0)) {
                               normalize(lanes, first + local, packs);
                             }
                           });
    }
  }

  KOKKOS_INLINE_FUNCTION TeamLanes<member_type, accumulation_type> team_lanes(
      const member_type& team) const {
    return {team, vector_length,
            static_cast<accumulation_type*>(team.team_shmem().get_shmem(
                TeamLanes<member_type, accumulation_type>::scratch_bytes(
                    team.team_size())))};
  }

  template <class Lanes>
  KOKKOS_FUNCTION void normalize(const Lanes& lanes, std::size_t row,
                                 int packs) const {
    // Zeroed because g++ cannot see that each read follows a load.
    Held held = {};
    const accumulation_type sum_of_squares = add_up(lanes, row, 0, packs, held);
    scale<!Resident>(lanes, row, 0, packs, this->rstd(sum_of_squares), held);
  }

  // Calls f(k, j) for each Pack j before `end` of the sweep starting at
  // Pack `start` that lane holds as held[k].
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_held(int lane,
                                                        int lane_count,
                                                        int start, int end,
                                                        F&& f) {
    for (int k = 0; k < PacksPerLane; ++k) {
      const int j = start + lane + k * lane_count;
      if (j < end) {
        f(k, j);
      }
    }
  }

  // The end of the last sweep over Packs [begin, end): one sweep for a
  // Resident row, known at compile time.
  KOKKOS_FORCEINLINE_FUNCTION static int sweeps_end(int lane_count, int begin,
                                                    int end) {
    const int sweep = lane_count * PacksPerLane;
    return Resident ? begin + sweep
                    : begin + (end - begin + sweep - 1) / sweep * sweep;
  }

  // The sum of squares of Packs [begin, end) of the row, leaving a Resident
  // row's Packs in held.
  template <class Lanes>
  KOKKOS_FUNCTION accumulation_type add_up(const Lanes& lanes, std::size_t row,
                                           int begin, int end,
                                           Held& held) const {
    const int count = lanes.count();
    const int last = sweeps_end(count, begin, end);
    return lanes.sum([&](int lane, accumulation_type& sum) {
      for (int start = begin; start < last; start += count * PacksPerLane) {
        for_each_held(lane, count, start, end,
                      [&](int k, int j) { held[k] = this->load(row, j); });
        for_each_held(lane, count, start, end,
                      [&](int k, int) { Math::add_squares(held[k], sum); });
      }
    });
  }

  // Scales Packs [begin, end) of the row by rstd into y, from held as
  // add_up left them, or Reloaded; the row's first Pack stores rstd.
  template <bool Reload, class Lanes>
  KOKKOS_FUNCTION void scale(const Lanes& lanes, std::size_t row, int begin,
                             int end, accumulation_type rstd,
                             Held& held) const {
    const int count = lanes.count();
    const int last = sweeps_end(count, begin, end);
    lanes.for_each([&](int lane) {
      if (lane == 0 && begin == 0) {
        this->store_rstd(row, rstd);
      }
      for (int start = begin; start < last; start += count * PacksPerLane) {
        if constexpr (Reload) {
          for_each_held(lane, count, start, end,
                        [&](int k, int j) { held[k] = this->reload(row, j); });
        }
        for_each_held(lane, count, start, end, [&](int k, int j) {
          this->store_scaled(row, j, held[k], rstd);
        });
      }
    });
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
