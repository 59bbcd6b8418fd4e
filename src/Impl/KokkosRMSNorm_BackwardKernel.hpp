#ifndef KOKKOSRMSNORM_IMPL_BACKWARDKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_BACKWARDKERNEL_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"

namespace KokkosRMSNorm::Impl {

// The backward pass over groups of consecutive rows, a team per group. For
// each row, with g = dy * weight factor:
//   dx = rstd * g - x * rstd^3 * sum(g * x) / N,
// and, unless Partials is None, the group's partial weight gradient
//   partials(group, j) += dy(row, j) * x(row, j) * rstd
// in the accumulation type, written by one thread per Pack j (the same for
// every row) and in row order, so it is the same bits on every run.
template <class ExecutionSpace, class DYRows, class XRows, class Weight,
          class RstdValues, class DXRows, class Partials>
struct BackwardKernel {
  using pack = typename DXRows::non_const_value_type;
  using value_type = typename pack::value_type;
  using accumulation_type = accumulation_type_t<value_type>;
  static constexpr int width = pack::width;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  DYRows dy;
  XRows x;
  Weight weight;
  RstdValues rstd;
  DXRows dx;
  Partials partials;
  int rows_per_team;
  accumulation_type inverse_n;  // 1 / elements per row

  // g = dy * weight factor for Pack j of row.
  KOKKOS_INLINE_FUNCTION void load_gradient(
      std::size_t row, int j, accumulation_type (&g)[width]) const {
    const pack d = dy(row, j);
    for (int k = 0; k < width; ++k) {
      g[k] = static_cast<accumulation_type>(d.lane[k]);
    }
    weight.scale(j, g);
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(x.extent(1));
    const std::size_t first = std::size_t(team.league_rank()) * rows_per_team;
    const std::size_t end = first + rows_per_team;
    const std::size_t last = end < x.extent(0) ? end : x.extent(0);
    for (std::size_t row = first; row < last; ++row) {
      const accumulation_type r = rstd(row);
      accumulation_type dot = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, packs),
          [&](int j, accumulation_type& partial_dot) {
            accumulation_type g[width];
            load_gradient(row, j, g);
            const pack v = x(row, j);
            for (int k = 0; k < width; ++k) {
              partial_dot += g[k] * static_cast<accumulation_type>(v.lane[k]);
            }
          },
          dot);
      const accumulation_type c = r * r * r * dot * inverse_n;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, packs), [&](int j) {
        accumulation_type g[width];
        load_gradient(row, j, g);
        const pack v = x(row, j), d = dy(row, j);
        pack out;
        for (int k = 0; k < width; ++k) {
          out.lane[k] = static_cast<value_type>(
              r * g[k] - c * static_cast<accumulation_type>(v.lane[k]));
        }
        dx(row, j) = out;
        if constexpr (!is_none_v<Partials>) {
          auto& partial = partials(team.league_rank(), j);
          for (int k = 0; k < width; ++k) {
            const accumulation_type term =
                static_cast<accumulation_type>(d.lane[k]) *
                static_cast<accumulation_type>(v.lane[k]) * r;
            partial.lane[k] = row == first ? term : partial.lane[k] + term;
          }
        }
      });
    }
  }
};

// dweight(j) = the sum of the groups' partials, in group order.
template <class Partials, class DWeightRow>
struct SumPartials {
  using accumulation_pack = typename Partials::non_const_value_type;
  using out_pack = typename DWeightRow::non_const_value_type;
  using out_type = typename out_pack::value_type;
  static constexpr int width = out_pack::width;

  Partials partials;
  DWeightRow dweight;

  KOKKOS_FUNCTION void operator()(int j) const {
    accumulation_pack total{};
    for (std::size_t group = 0; group < partials.extent(0); ++group) {
      const accumulation_pack& partial = partials(group, j);
      for (int k = 0; k < width; ++k) {
        total.lane[k] += partial.lane[k];
      }
    }
    out_pack out;
    for (int k = 0; k < width; ++k) {
      out.lane[k] = static_cast<out_type>(total.lane[k]);
    }
    dweight(j) = out;
  }
};

// Rows per team: enough teams to fill a GPU, or the threads of a host, and a
// fixed number of them for given extents so that dweight's bits depend only
// on the extents and the backend.
template <class ExecutionSpace>
int backward_rows_per_team(std::size_t rows) {
  const std::size_t teams = is_gpu_v<ExecutionSpace> ? 1024 : 64;
  return std::max(1, ceil_div(rows, teams));
}

template <class ExecutionSpace>
int backward_team_size(std::size_t packs_per_row) {
  if constexpr (!is_gpu_v<ExecutionSpace>) {
    return 1;
  } else {
    // About four Packs a thread, in whole warps, at most 256 threads.
    constexpr int warp = 32;
    return std::clamp(ceil_div(ceil_div(packs_per_row, 4), warp) * warp, warp,
                      256);
  }
}

// Launches the backward pass on rows of Packs of Width, and the sum of the
// partial weight gradients unless dweight is None.
template <int Width, class ExecutionSpace, class DYRows, class XRows,
          class Weight, class RstdValues, class DXRows, class DWeight>
void launch_rms_norm_backward(const ExecutionSpace& space, const DYRows& dy,
                              const XRows& x, const Weight& weight,
                              const RstdValues& rstd, const DXRows& dx,
                              const DWeight& dweight) {
  const auto dx_packs = as_pack_rows<Width>(dx);
  using pack = typename decltype(dx_packs)::non_const_value_type;
  using accumulation_type = accumulation_type_t<typename pack::value_type>;
  const std::size_t rows = x.extent(0), packs = x.extent(1) / Width;
  const int rows_per_team = backward_rows_per_team<ExecutionSpace>(rows);
  const int teams = rows == 0 ? 0 : ceil_div(rows, rows_per_team);
  auto partials = [&] {
    if constexpr (is_none_v<DWeight>) {
      return None();
    } else {
      using Partials =
          Kokkos::View<Pack<accumulation_type, Width>**, Kokkos::LayoutRight,
                       typename ExecutionSpace::memory_space>;
      return Partials(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                         "KokkosRMSNorm::dweight_partials"),
                      teams, packs);
    }
  }();
  const auto weight_packs = weight_factors<Width>(weight);
  using Kernel =
      BackwardKernel<ExecutionSpace, decltype(as_pack_rows<Width>(dy)),
                     decltype(as_pack_rows<Width>(x)), decltype(weight_packs),
                     RstdValues, decltype(dx_packs), decltype(partials)>;
  if (teams > 0) {
    Kokkos::parallel_for(
        "KokkosRMSNorm::rms_norm_backward",
        Kokkos::TeamPolicy<ExecutionSpace>(
            space, teams, backward_team_size<ExecutionSpace>(packs)),
        Kernel{as_pack_rows<Width>(dy), as_pack_rows<Width>(x), weight_packs,
               rstd, dx_packs, partials, rows_per_team,
               accumulation_type(1) /
                   static_cast<accumulation_type>(x.extent(1))});
  }
  if constexpr (!is_none_v<DWeight>) {
    const auto dweight_packs = as_pack_row<Width>(dweight);
    Kokkos::parallel_for(
        "KokkosRMSNorm::rms_norm_backward_dweight",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, packs),
        SumPartials<decltype(partials), decltype(dweight_packs)>{
            partials, dweight_packs});
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
