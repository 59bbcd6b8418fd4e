#ifndef KOKKOSRMSNORM_IMPL_KERNEL_HPP
#define KOKKOSRMSNORM_IMPL_KERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"

namespace KokkosRMSNorm::Impl {

// The arithmetic on rows of Packs, apart from how lanes share the rows:
// y = x * rstd * w, rstd = 1 / sqrt(sum(x^2) / N + eps).
template <class XRows, class WeightRow, class YRows>
struct RowMath {
  using x_pack = typename XRows::non_const_value_type;
  using y_pack = typename YRows::non_const_value_type;
  using y_type = typename y_pack::value_type;
  using accumulation_type = accumulation_type_t<y_type>;
  static constexpr int width = x_pack::width;

  XRows x;
  WeightRow weight;
  YRows y;
  accumulation_type eps;
  accumulation_type inverse_n;  // 1 / elements per row

  KOKKOS_INLINE_FUNCTION static void add_squares(const x_pack& v,
                                                 accumulation_type& sum) {
    for (int k = 0; k < width; ++k) {
      const auto value = static_cast<accumulation_type>(v.lane[k]);
      sum += value * value;
    }
  }

  KOKKOS_INLINE_FUNCTION accumulation_type
  rstd(accumulation_type sum_of_squares) const {
    return rsqrt(sum_of_squares * inverse_n + eps);
  }

  KOKKOS_INLINE_FUNCTION void store_scaled(std::size_t row, int j,
                                           const x_pack& v,
                                           accumulation_type rstd) const {
    const auto w = weight(j);
    y_pack out;
    for (int k = 0; k < width; ++k) {
      out.lane[k] =
          static_cast<y_type>(static_cast<accumulation_type>(v.lane[k]) * rstd *
                              static_cast<accumulation_type>(w.lane[k]));
    }
    y(row, j) = out;
  }
};

// Normalizes rows with "lanes": the threads of a team sharing one row
// (TeamPerRow), or the vector lanes of a team thread, each thread owning a
// row. Each lane holds PacksPerLane Packs in registers, loaded before any is
// used so that they are all in flight at once. A Resident row, which the
// lanes cover in one sweep, stays in registers between the sum of squares
// and the scaling, so x is read from memory once; a longer row is swept
// twice. Each lane takes exactly one index of its range (the range's extent
// is the lane count), so `held` is written and read by the same lane.
template <int PacksPerLane, bool TeamPerRow, bool Resident,
          class ExecutionSpace, class XRows, class WeightRow, class YRows>
struct RMSNormKernel : RowMath<XRows, WeightRow, YRows> {
  using Math = RowMath<XRows, WeightRow, YRows>;
  using typename Math::accumulation_type;
  using typename Math::x_pack;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  int rows_per_team;
  int lane_count;  // the team size for TeamPerRow, else the vector length

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    if constexpr (TeamPerRow) {
      normalize(Kokkos::TeamThreadRange(team, lane_count), team.league_rank());
    } else {
      const std::size_t first = std::size_t(team.league_rank()) * rows_per_team;
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, rows_per_team), [&](int local) {
            if (first + local < this->x.extent(0)) {
              normalize(Kokkos::ThreadVectorRange(team, lane_count),
                        first + local);
            }
          });
    }
  }

  // Calls f(k, j) for each Pack j of the sweep starting at Pack `start` that
  // lane holds as held[k].
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each_held(int lane, int start, int packs,
                                                 F&& f) const {
    for (int k = 0; k < PacksPerLane; ++k) {
      const int j = start + lane + k * lane_count;
      if (j < packs) {
        f(k, j);
      }
    }
  }

  template <class Lanes>
  KOKKOS_FUNCTION void normalize(const Lanes& lanes, std::size_t row) const {
    const int packs = static_cast<int>(this->x.extent(1));
    const int sweep = lane_count * PacksPerLane;  // Packs one sweep covers
    const int sweeps = Resident ? 1 : (packs + sweep - 1) / sweep;
    x_pack held[PacksPerLane];
    accumulation_type sum_of_squares = 0;
    Kokkos::parallel_reduce(
        lanes,
        [&](int lane, accumulation_type& sum) {
          for (int start = 0; start < sweeps * sweep; start += sweep) {
            for_each_held(lane, start, packs,
                          [&](int k, int j) { held[k] = this->x(row, j); });
            for_each_held(lane, start, packs,
                          [&](int k, int) { Math::add_squares(held[k], sum); });
          }
        },
        sum_of_squares);
    const accumulation_type rstd = this->rstd(sum_of_squares);
    Kokkos::parallel_for(lanes, [&](int lane) {
      for (int start = 0; start < sweeps * sweep; start += sweep) {
        if constexpr (!Resident) {
          for_each_held(lane, start, packs,
                        [&](int k, int j) { held[k] = this->x(row, j); });
        }
        for_each_held(lane, start, packs, [&](int k, int j) {
          this->store_scaled(row, j, held[k], rstd);
        });
      }
    });
  }
};

// Launches the kernel `shape` names on rows of Packs of Width elements.
template <int Width, class ExecutionSpace, class XView, class WeightView,
          class YView>
void launch_rms_norm(const ExecutionSpace& space, const XView& x,
                     const WeightView& weight, const YView& y, double eps,
                     const LaunchShape& shape) {
  const auto x_rows = as_pack_rows<Width>(x);
  const auto weight_row = as_pack_row<Width>(weight);
  const auto y_rows = as_pack_rows<Width>(y);
  using Math =
      RowMath<decltype(x_rows), decltype(weight_row), decltype(y_rows)>;
  using accumulation_type = typename Math::accumulation_type;
  const Math math{
      x_rows, weight_row, y_rows, static_cast<accumulation_type>(eps),
      accumulation_type(1) / static_cast<accumulation_type>(x.extent(1))};
  const bool team_per_row = shape.rows_per_team == 1;
  const int lane_count = team_per_row ? shape.team_size : shape.vector_length;
  const auto launch = [&](auto packs_per_lane, auto team_per_row_constant,
                          auto resident) {
    constexpr int per_lane = decltype(packs_per_lane)::value;
    // Caps registers (at 64 a thread for teams up to 1024, 128 for teams up
    // to 512) so that every team size the shape names can launch.
    using Policy =
        Kokkos::TeamPolicy<ExecutionSpace,
                           Kokkos::LaunchBounds<per_lane <= 4 ? 1024 : 512, 1>>;
    Kokkos::parallel_for(
        "KokkosRMSNorm::rms_norm",
        Policy(space, shape.league_size, shape.team_size, shape.vector_length),
        RMSNormKernel<per_lane, decltype(team_per_row_constant)::value,
                      decltype(resident)::value, ExecutionSpace,
                      decltype(x_rows), decltype(weight_row), decltype(y_rows)>{
            math, shape.rows_per_team, lane_count});
  };
  // Each kernel variant is compiled for both ways of sharing rows.
  const auto launch_for_rows = [&](auto packs_per_lane, auto resident) {
    if (team_per_row) {
      launch(packs_per_lane, std::true_type(), resident);
    } else {
      launch(packs_per_lane, std::false_type(), resident);
    }
  };
  using std::integral_constant;
  if (x_rows.extent(1) > std::size_t(lane_count) * shape.packs_per_lane) {
    // Rows longer than one sweep are swept four Packs a lane at a time.
    return launch_for_rows(integral_constant<int, 4>(), std::false_type());
  }
  switch (shape.packs_per_lane) {  // as chosen by choose_launch_shape
    case 1:
      return launch_for_rows(integral_constant<int, 1>(), std::true_type());
    case 2:
      return launch_for_rows(integral_constant<int, 2>(), std::true_type());
    case 4:
      return launch_for_rows(integral_constant<int, 4>(), std::true_type());
    default:
      return launch_for_rows(integral_constant<int, 8>(), std::true_type());
  }
}

// The same with the launch shape chosen for the rows' extents.
template <int Width, class ExecutionSpace, class XView, class WeightView,
          class YView>
void launch_rms_norm(const ExecutionSpace& space, const XView& x,
                     const WeightView& weight, const YView& y, double eps) {
  launch_rms_norm<Width>(
      space, x, weight, y, eps,
      choose_launch_shape<ExecutionSpace>(x.extent(0), x.extent(1) / Width));
}

}  // namespace KokkosRMSNorm::Impl

#endif
