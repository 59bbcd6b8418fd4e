// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_SHARDEDBACKWARD_HPP
#define KOKKOSRMSNORM_IMPL_SHARDEDBACKWARD_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Overlap.hpp"
#include "KokkosRMSNorm_Requirements.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_Sharded.hpp"
#include "KokkosRMSNorm_Validate.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"

namespace KokkosRMSNorm::Impl {

// The backward pass's halves over sharded columns, as the forward pass's in
// KokkosRMSNorm_Sharded.hpp: each rank's sums of g * x over its columns, then
// dx from the whole rows' sums, and the shard's own columns of dweight.

// The weight's factor for column j in the accumulation type: w(j), 1 +
// w(j) (one_plus), or 1 (no weight: WeightValues None).
template <class Accumulation, class WeightValues, bool AddOne>
struct ColumnFactors {
  WeightValues w;
  KOKKOS_INLINE_FUNCTION Accumulation operator()(int j) const {
    if constexpr (is_none_v<WeightValues>) {
      return Accumulation(1);
    } else {
      const auto factor = static_cast<Accumulation>(w(j));
      return AddOne ? Accumulation(1) + factor : factor;
    }
  }
};

template <class Accumulation, class Weight>
auto column_factors(const Weight& weight) {
  using Values = decltype(weight_view(weight));
  return ColumnFactors<Accumulation, Values, adds_one_v<Weight>>{
      weight_view(weight)};
}

// sums(row) = sum over the shard's columns of g * x, g = dy * factor.
template <class DYRows, class XRows, class Factors, class SumsValues>
struct BackwardPartialSumsKernel {
  using accumulation_type =
      accumulation_type_t<typename XRows::non_const_value_type>;
  DYRows dy;
  XRows x;
  Factors factor;
  SumsValues sums;

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    accumulation_type total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, static_cast<int>(x.extent(1))),
        [&](int j, accumulation_type& sum) {
          sum += static_cast<accumulation_type>(dy(row, j)) * factor(j) *
                 static_cast<accumulation_type>(x(row, j));
        },
        total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sums(row) = total; });
  }
};

// dx = rstd * g - x * rstd^3 * sums / n, sums the whole rows' sums of g * x.
template <class DYRows, class XRows, class Factors, class RstdValues,
          class SumsValues, class DXRows>
struct BackwardFinishKernel {
  using accumulation_type =
      accumulation_type_t<typename XRows::non_const_value_type>;
  using value_type = typename DXRows::non_const_value_type;
  DYRows dy;
  XRows x;
  Factors factor;
  RstdValues rstd;
  SumsValues sums;
  DXRows dx;
  accumulation_type inverse_n;

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    const accumulation_type r = rstd(row);
    const accumulation_type correction = r * r * r * sums(row) * inverse_n;
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, static_cast<int>(x.extent(1))),
        [&](int j) {
          const auto g = static_cast<accumulation_type>(dy(row, j)) * factor(j);
          dx(row, j) = static_cast<value_type>(
              r * g - static_cast<accumulation_type>(x(row, j)) * correction);
        });
  }
};

// dweight(j) = sum over the rows, in row order, of dy * x * rstd: the
// shard's columns of the weight gradient, which need no other shard.
template <class DYRows, class XRows, class RstdValues, class DWeightValues>
struct ShardWeightGradientKernel {
  using accumulation_type =
      accumulation_type_t<typename XRows::non_const_value_type>;
  DYRows dy;
  XRows x;
  RstdValues rstd;
  DWeightValues dweight;

  KOKKOS_FUNCTION void operator()(int j) const {
    accumulation_type sum = 0;
    for (std::size_t row = 0; row < x.extent(0); ++row) {
      sum += static_cast<accumulation_type>(dy(row, j)) *
             static_cast<accumulation_type>(x(row, j)) * rstd(row);
    }
    dweight(j) = static_cast<typename DWeightValues::non_const_value_type>(sum);
  }
};

// The checks of the backward halves: dy and dx like x, weight and dweight
// of the shard's length, rstd and sums one a row, outputs apart.
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class RstdView, class SumsView, class DXView, class DWeight>
void check_backward_shard(const char* function, const DYView& dy,
                          const XView& x, const Weight& weight,
                          const RstdView& rstd, const SumsView& sums,
                          const DXView& dx, const DWeight& dweight) {
  require_row_views<ExecutionSpace, XView, DYView, DXView>();
  require_writable<DXView, decltype(weight_view(dweight))>();
  require_weight_view<ExecutionSpace, decltype(weight_view(weight))>();
  require_weight_view<ExecutionSpace, decltype(weight_view(dweight))>();
  require_rstd_view<ExecutionSpace, RstdView, XView>();
  require_extents_of_x(function, "dy", dy, x);
  require_extents_of_x(function, "dx", dx, x);
  require_row_length(function, "weight", weight_view(weight), x);
  require_row_length(function, "dweight", weight_view(dweight), x);
  require_one_per_row(function, "rstd", rstd, x);
  const RowOrder order = require_shard<ExecutionSpace>(function, x, sums);
  constexpr unsigned row_rank = XView::rank - 1;
  require_row_order<row_rank>(function, "dy", dy, order);
  require_row_order<row_rank>(function, "dx", dx, order);
  require_row_order<row_rank>(function, "rstd", rstd, order);
  const auto dx_rows = as_rows(dx, order);
  const auto dweight_values = weight_view(dweight);
  require_apart<true>(function, "dx", dx_rows, "dy", as_rows(dy, order));
  require_apart(function, "dx", dx_rows, "x", as_rows(x, order));
  require_apart(function, "dx", dx_rows, "weight", weight_view(weight));
  require_apart(function, "dx", dx_rows, "rstd", as_row_values(rstd, order));
  require_apart(function, "dx", dx_rows, "sums", as_row_values(sums, order));
  require_apart(function, "dweight", dweight_values, "dy", as_rows(dy, order));
  require_apart(function, "dweight", dweight_values, "x", as_rows(x, order));
  require_apart(function, "dweight", dweight_values, "dx", dx_rows);
}

// sums = the rows' sums over the shard of dy * weight factor * x.
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class SumsView>
void backward_partial_sums(const char* function, const ExecutionSpace& space,
                           const DYView& dy, const XView& x,
                           const Weight& weight, const SumsView& sums) {
  const ProfilingRegion region(function);
  require_row_views<ExecutionSpace, XView, DYView>();
  require_writable<SumsView>();
  require_weight_view<ExecutionSpace, decltype(weight_view(weight))>();
  require_extents_of_x(function, "dy", dy, x);
  require_row_length(function, "weight", weight_view(weight), x);
  const RowOrder order = require_shard<ExecutionSpace>(function, x, sums);
  require_row_order<XView::rank - 1>(function, "dy", dy, order);
  const auto x_rows = as_rows(x, order);
  const auto sums_values = as_row_values(sums, order);
  require_apart(function, "sums", sums_values, "x", x_rows);
  require_apart(function, "sums", sums_values, "dy", as_rows(dy, order));
  if (x_rows.extent(0) == 0) {
    return;
  }
  using Accumulation =
      accumulation_type_t<typename XView::non_const_value_type>;
  const auto factors = column_factors<Accumulation>(weight);
  const auto dy_rows = as_rows(dy, order);
  launch_team_a_row(
      function, space, x_rows.extent(0),
      BackwardPartialSumsKernel<decltype(dy_rows), decltype(x_rows),
                                decltype(factors), decltype(sums_values)>{
          dy_rows, x_rows, factors, sums_values});
}

// dx from the whole rows' sums of g * x and their length n; dweight (unless
// None) the shard's columns of the weight gradient.
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class RstdView, class SumsView, class DXView, class DWeight>
void backward_finish(const char* function, const ExecutionSpace& space,
                     const DYView& dy, const XView& x, const Weight& weight,
                     const RstdView& rstd, const SumsView& sums, std::size_t n,
                     const DXView& dx, const DWeight& dweight) {
  const ProfilingRegion region(function);
  check_backward_shard<ExecutionSpace>(function, dy, x, weight, rstd, sums, dx,
                                       dweight);
  require_whole_row_length(function, n, x);
  const RowOrder order = common_row_order(function, x, x);
  const auto x_rows = as_rows(x, order);
  if (x_rows.extent(0) == 0 || x_rows.extent(1) == 0) {
    return;
  }
  using Accumulation =
      accumulation_type_t<typename XView::non_const_value_type>;
  const auto factors = column_factors<Accumulation>(weight);
  const auto dy_rows = as_rows(dy, order);
  const auto dx_rows = as_rows(dx, order);
  const auto rstd_values = as_row_values(rstd, order);
  const auto sums_values = as_row_values(sums, order);
  launch_team_a_row(
      function, space, x_rows.extent(0),
      BackwardFinishKernel<decltype(dy_rows), decltype(x_rows),
                           decltype(factors), decltype(rstd_values),
                           decltype(sums_values), decltype(dx_rows)>{
          dy_rows, x_rows, factors, rstd_values, sums_values, dx_rows,
          Accumulation(1) / static_cast<Accumulation>(n)});
  if constexpr (!is_none_v<decltype(weight_view(dweight))>) {
    const auto dweight_values = weight_view(dweight);
    Kokkos::parallel_for(
        function,
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, x_rows.extent(1)),
        ShardWeightGradientKernel<decltype(dy_rows), decltype(x_rows),
                                  decltype(rstd_values),
                                  decltype(dweight_values)>{
            dy_rows, x_rows, rstd_values, dweight_values});
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
