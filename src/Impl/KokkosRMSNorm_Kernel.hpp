#ifndef KOKKOSRMSNORM_IMPL_KERNEL_HPP
#define KOKKOSRMSNORM_IMPL_KERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"

namespace KokkosRMSNorm::Impl {

// The arithmetic on rows of Packs shared by both kernels:
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

// Two passes over each row, the second re-reading x from cache: any row
// length, any backend. A team walks its rows one after the other, all its
// lanes on each row.
template <class ExecutionSpace, class XRows, class WeightRow, class YRows>
struct TwoPassKernel : RowMath<XRows, WeightRow, YRows> {
  using Math = RowMath<XRows, WeightRow, YRows>;
  using typename Math::accumulation_type;
  using typename Math::x_pack;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  int rows_per_team;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(this->x.extent(1));
    const auto lanes = Kokkos::TeamVectorRange(team, packs);
    const std::size_t rows = this->x.extent(0);
    const std::size_t first = std::size_t(team.league_rank()) * rows_per_team;
    const std::size_t last =
        first + rows_per_team < rows ? first + rows_per_team : rows;
    for (std::size_t row = first; row < last; ++row) {
      accumulation_type sum_of_squares = 0;
      Kokkos::parallel_reduce(
          lanes,
          [&](int j, accumulation_type& sum) {
            Math::add_squares(this->x(row, j), sum);
          },
          sum_of_squares);
      const accumulation_type rstd = this->rstd(sum_of_squares);
      Kokkos::parallel_for(lanes, [&](int j) {
        this->store_scaled(row, j, this->x(row, j), rstd);
      });
    }
  }
};

// A team per row, each thread holding up to PacksPerThread Packs of it in
// registers between the sum of squares and the scaling: x is read from
// memory once, and a thread's loads are all in flight before the first
// use. Needs team_size * PacksPerThread >= Packs per row, so it is a GPU
// path; the launch uses vector length 1, so team ranks are adjacent lanes.
template <int PacksPerThread, class ExecutionSpace, class XRows,
          class WeightRow, class YRows>
struct RegisterKernel : RowMath<XRows, WeightRow, YRows> {
  using Math = RowMath<XRows, WeightRow, YRows>;
  using typename Math::accumulation_type;
  using typename Math::x_pack;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const std::size_t row = team.league_rank();
    const int packs = static_cast<int>(this->x.extent(1));
    const int threads = team.team_size();
    // One index per team thread, each handled by the thread of that rank,
    // so `held` is written and read by the same thread.
    const auto per_thread = Kokkos::TeamThreadRange(team, threads);
    x_pack held[PacksPerThread];
    accumulation_type sum_of_squares = 0;
    Kokkos::parallel_reduce(
        per_thread,
        [&](int thread, accumulation_type& sum) {
          for (int k = 0; k < PacksPerThread; ++k) {
            const int j = thread + k * threads;
            if (j < packs)
              held[k] = this->x(row, j);
          }
          for (int k = 0; k < PacksPerThread; ++k) {
            if (thread + k * threads < packs)
              Math::add_squares(held[k], sum);
          }
        },
        sum_of_squares);
    const accumulation_type rstd = this->rstd(sum_of_squares);
    Kokkos::parallel_for(per_thread, [&](int thread) {
      for (int k = 0; k < PacksPerThread; ++k) {
        const int j = thread + k * threads;
        if (j < packs)
          this->store_scaled(row, j, held[k], rstd);
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
  const auto launch = [&](const auto& policy, const auto& kernel) {
    Kokkos::parallel_for("KokkosRMSNorm::rms_norm", policy, kernel);
  };
  const auto in_registers = [&](auto packs_per_thread) {
    // The bound caps registers at 64 a thread, so any team size launches.
    using Policy =
        Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<1024, 1>>;
    launch(Policy(space, shape.league_size, shape.team_size, 1),
           RegisterKernel<decltype(packs_per_thread)::value, ExecutionSpace,
                          decltype(x_rows), decltype(weight_row),
                          decltype(y_rows)>{math});
  };
  switch (shape.packs_per_thread) {  // as chosen by choose_launch_shape
    case 1:
      return in_registers(std::integral_constant<int, 1>());
    case 2:
      return in_registers(std::integral_constant<int, 2>());
    case 4:
      return in_registers(std::integral_constant<int, 4>());
    default:
      launch(
          Kokkos::TeamPolicy<ExecutionSpace>(
              space, shape.league_size, shape.team_size, shape.vector_length),
          TwoPassKernel<ExecutionSpace, decltype(x_rows), decltype(weight_row),
                        decltype(y_rows)>{math, shape.rows_per_team});
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
