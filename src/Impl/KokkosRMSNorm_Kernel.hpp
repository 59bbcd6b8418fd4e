#ifndef KOKKOSRMSNORM_IMPL_KERNEL_HPP
#define KOKKOSRMSNORM_IMPL_KERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"

namespace KokkosRMSNorm::Impl {

// Normalizes rows of Packs: y = x * rstd * w, rstd = 1 / sqrt(mean(x^2) + eps).
template <class ExecutionSpace, class XRows, class WeightRow, class YRows>
struct RMSNormKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using x_pack = typename XRows::non_const_value_type;
  using y_pack = typename YRows::non_const_value_type;
  using y_type = typename y_pack::value_type;
  using accumulation_type = accumulation_type_t<y_type>;
  using cache_view =
      Kokkos::View<x_pack*, typename ExecutionSpace::scratch_memory_space,
                   Kokkos::MemoryUnmanaged>;
  static constexpr int width = x_pack::width;

  XRows x;
  WeightRow weight;
  YRows y;
  accumulation_type eps;
  accumulation_type inverse_n;  // 1 / elements per row
  LaunchShape shape;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(x.extent(1));
    const bool cached = shape.cache_bytes > 0;
    const cache_view cache =
        cached ? cache_view(team.team_scratch(0),
                            std::size_t(shape.rows_per_team) * packs)
               : cache_view();
    if (shape.row_per_thread) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, shape.rows_per_team), [&](int local) {
            const std::size_t row =
                std::size_t(team.league_rank()) * shape.rows_per_team + local;
            if (row < x.extent(0)) {
              x_pack* row_cache = cached ? &cache(local * packs) : nullptr;
              normalize(Kokkos::ThreadVectorRange(team, packs), row, row_cache);
            }
          });
    } else {
      normalize(Kokkos::TeamVectorRange(team, packs), team.league_rank(),
                cached ? cache.data() : nullptr);
    }
  }

  // Two passes over one row with the lanes of `range`: the sum of squares,
  // then the scaling. With a cache the second pass reads the Packs the same
  // lane stored in the first; the reduction between them is a barrier for
  // the lanes involved, so the stores are visible.
  template <class Range>
  KOKKOS_FUNCTION void normalize(const Range& range, std::size_t row,
                                 x_pack* row_cache) const {
    accumulation_type sum_of_squares = 0;
    Kokkos::parallel_reduce(
        range,
        [&](int j, accumulation_type& sum) {
          const x_pack v = x(row, j);
          if (row_cache)
            row_cache[j] = v;
          for (int k = 0; k < width; ++k) {
            const auto value = static_cast<accumulation_type>(v.lane[k]);
            sum += value * value;
          }
        },
        sum_of_squares);
    const accumulation_type rstd = rsqrt(sum_of_squares * inverse_n + eps);
    Kokkos::parallel_for(range, [&](int j) {
      const x_pack v = row_cache ? row_cache[j] : x(row, j);
      const auto w = weight(j);
      y_pack out;
      for (int k = 0; k < width; ++k) {
        out.lane[k] = static_cast<y_type>(
            static_cast<accumulation_type>(v.lane[k]) * rstd *
            static_cast<accumulation_type>(w.lane[k]));
      }
      y(row, j) = out;
    });
  }
};

// Launches the kernel on rows of Packs of Width elements.
template <int Width, class ExecutionSpace, class XView, class WeightView,
          class YView, class Scalar>
void launch_rms_norm(const ExecutionSpace& space, const XView& x,
                     const WeightView& weight, const YView& y, Scalar eps) {
  const auto x_rows = as_pack_rows<Width>(x);
  const auto weight_row = as_pack_row<Width>(weight);
  const auto y_rows = as_pack_rows<Width>(y);
  using Kernel = RMSNormKernel<ExecutionSpace, decltype(x_rows),
                               decltype(weight_row), decltype(y_rows)>;
  using accumulation_type = typename Kernel::accumulation_type;
  const LaunchShape shape = choose_launch_shape<ExecutionSpace>(
      x_rows.extent(0), x_rows.extent(1), sizeof(typename Kernel::x_pack));
  Kokkos::TeamPolicy<ExecutionSpace> policy(
      space, shape.league_size, shape.team_size, shape.vector_length);
  if (shape.cache_bytes > 0) {
    policy.set_scratch_size(0, Kokkos::PerTeam(shape.cache_bytes));
  }
  Kokkos::parallel_for(
      "KokkosRMSNorm::rms_norm", policy,
      Kernel{x_rows, weight_row, y_rows, static_cast<accumulation_type>(eps),
             accumulation_type(1) / static_cast<accumulation_type>(x.extent(1)),
             shape});
}

}  // namespace KokkosRMSNorm::Impl

#endif
