// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_SHARDED_HPP
#define KOKKOSRMSNORM_IMPL_SHARDED_HPP

#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Weight.hpp"
#include "Backends/KokkosRMSNorm_Portable.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Overlap.hpp"
#include "KokkosRMSNorm_Requirements.hpp"
#include "KokkosRMSNorm_RowMath.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm::Impl {

// The two halves of a norm over rows whose columns are sharded (across
// ranks, say), each one kernel of a team a row over the shard's elements:
// the rows' sums of squares over the shard, and the scaling by the rstd of
// the whole rows' sums. Math is a RowMath of Packs of one value.
template <class Math, class SumsValues>
struct PartialSumsKernel {
  using accumulation_type = typename Math::accumulation_type;
  Math math;
  SumsValues sums;

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    accumulation_type total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, static_cast<int>(math.packs_per_row())),
        [&](int j, accumulation_type& sum) {
          Math::template add_squares<PortableBackend>(
              math.template load<PortableBackend>(row, j), sum);
        },
        total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sums(row) = total; });
  }
};

template <class Math, class SumsValues>
struct FinishKernel {
  using accumulation_type = typename Math::accumulation_type;
  Math math;
  SumsValues sums;

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    const accumulation_type rstd = math.rstd(sums(row));
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { math.store_rstd(row, rstd); });
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, static_cast<int>(math.packs_per_row())),
        [&](int j) {
          math.template store_scaled<PortableBackend>(
              row, j, math.reload(row, j), rstd,
              math.weight.template convert<PortableBackend, accumulation_type>(
                  math.weight_at(row, j)),
              accumulation_type(1));
        });
  }
};

template <class ExecutionSpace, class Kernel>
void launch_team_a_row(const char* label, const ExecutionSpace& space,
                       std::size_t rows, const Kernel& kernel) {
  Kokkos::parallel_for(
      label, Kokkos::TeamPolicy<ExecutionSpace>(space, rows, Kokkos::AUTO),
      kernel);
}

// n, the whole rows' length, is at least the shard's.
template <class XView>
void require_whole_row_length(const char* function, std::size_t n,
                              const XView& x) {
  if (n < x.extent(XView::rank - 1)) {
    throw_invalid(function, "n, the whole rows' length, is " +
                                std::to_string(n) +
                                ", less than the shard's (x extents " +
                                extents_of(x) + ")");
  }
}

// The checks both halves make of a shard's row arguments and its sums: a
// View of one accumulation value per row, as rstd.
template <class ExecutionSpace, class XView, class SumsView>
RowOrder require_shard(const char* function, const XView& x,
                       const SumsView& sums) {
  require_row_views<ExecutionSpace, XView>();
  static_assert(XView::rank <= 3,
                "KokkosRMSNorm: the sharded norm takes row Views of rank 2 "
                "or 3");
  require_rstd_view<ExecutionSpace, SumsView, XView>();
  require_one_per_row(function, "sums", sums, x);
  const RowOrder order = common_row_order(function, x, x);
  require_row_order<XView::rank - 1>(function, "sums", sums, order);
  return order;
}

// Throws std::invalid_argument unless partial_sums may run.
template <class ExecutionSpace, class XView, class ResidualView, class SumView,
          class SumsView>
void check_partial_sums(const char* function, const XView& x,
                        const ResidualView& residual, const SumView& sum,
                        const SumsView& sums) {
  require_row_views<ExecutionSpace, XView, ResidualView, SumView>();
  require_writable<SumView, SumsView>();
  require_extents_of_x(function, "residual", residual, x);
  require_extents_of_x(function, "sum", sum, x);
  const RowOrder order = require_shard<ExecutionSpace>(function, x, sums);
  constexpr unsigned row_rank = XView::rank - 1;
  require_row_order<row_rank>(function, "residual", residual, order);
  require_row_order<row_rank>(function, "sum", sum, order);
  const auto x_rows = as_rows(x, order);
  const auto residual_rows = as_rows(residual, order);
  const auto sum_rows = as_rows(sum, order);
  const auto sums_values = as_row_values(sums, order);
  require_apart<true>(function, "sum", sum_rows, "x", x_rows);
  require_apart<true>(function, "sum", sum_rows, "residual", residual_rows);
  require_apart(function, "sums", sums_values, "x", x_rows);
  require_apart(function, "sums", sums_values, "residual", residual_rows);
  require_apart(function, "sums", sums_values, "sum", sum_rows);
}

// sums = the rows' sums of squares of x (or of sum = x + residual, stored)
// over the shard's columns; zero for a shard of no columns.
template <class ExecutionSpace, class XView, class ResidualView, class SumView,
          class SumsView>
void partial_sums(const char* function, const ExecutionSpace& space,
                  const XView& x, const ResidualView& residual,
                  const SumView& sum, const SumsView& sums) {
  const ProfilingRegion region(function);
  check_partial_sums<ExecutionSpace>(function, x, residual, sum, sums);
  const RowOrder order = common_row_order(function, x, x);
  const auto x_rows = as_rows(x, order);
  if (x_rows.extent(0) == 0) {
    return;
  }
  const auto sums_values = as_row_values(sums, order);
  const auto math =
      make_row_math<1>(x_rows, as_rows(residual, order), as_rows(sum, order),
                       no_weight, None(), None(), 0.0);
  launch_team_a_row(function, space, x_rows.extent(0),
                    PartialSumsKernel<decltype(math), decltype(sums_values)>{
                        math, sums_values});
}

// Throws std::invalid_argument unless finish may run.
template <class ExecutionSpace, class XView, class SumsView, class Weight,
          class YView, class RstdView>
void check_finish(const char* function, const XView& x, const SumsView& sums,
                  std::size_t n, const Weight& weight, const YView& y,
                  double eps, const RstdView& rstd) {
  const auto weight_values = weight_view(weight);
  require_row_views<ExecutionSpace, XView, YView>();
  require_writable<YView, RstdView>();
  require_weight_view<ExecutionSpace, decltype(weight_view(weight))>();
  require_rstd_view<ExecutionSpace, RstdView, XView>();
  require_extents_of_x(function, "y", y, x);
  require_row_length(function, "weight", weight_values, x);
  require_one_per_row(function, "rstd", rstd, x);
  require_valid_eps(function, eps, x);
  require_whole_row_length(function, n, x);
  const RowOrder order = require_shard<ExecutionSpace>(function, x, sums);
  require_row_order<XView::rank - 1>(function, "y", y, order);
  require_row_order<XView::rank - 1>(function, "rstd", rstd, order);
  const auto x_rows = as_rows(x, order);
  const auto y_rows = as_rows(y, order);
  const auto sums_values = as_row_values(sums, order);
  const auto rstd_values = as_row_values(rstd, order);
  require_apart<true>(function, "y", y_rows, "x", x_rows);
  require_apart(function, "y", y_rows, "weight", weight_values);
  require_apart(function, "y", y_rows, "sums", sums_values);
  require_apart(function, "rstd", rstd_values, "x", x_rows);
  require_apart(function, "rstd", rstd_values, "y", y_rows);
  require_apart(function, "rstd", rstd_values, "weight", weight_values);
  require_apart(function, "rstd", rstd_values, "sums", sums_values);
}

// y = x * rstd * weight factor, rstd = 1 / sqrt(sums / n + eps) for each
// row, n the whole rows' length, stored to rstd unless None.
template <class ExecutionSpace, class XView, class SumsView, class Weight,
          class YView, class RstdView>
void finish(const char* function, const ExecutionSpace& space, const XView& x,
            const SumsView& sums, std::size_t n, const Weight& weight,
            const YView& y, double eps, const RstdView& rstd) {
  const ProfilingRegion region(function);
  check_finish<ExecutionSpace>(function, x, sums, n, weight, y, eps, rstd);
  const RowOrder order = common_row_order(function, x, x);
  const auto x_rows = as_rows(x, order);
  if (x_rows.extent(0) == 0 || n == 0) {
    return;
  }
  const auto sums_values = as_row_values(sums, order);
  auto math =
      make_row_math<1>(x_rows, None(), None(), weight, as_rows(y, order),
                       as_row_values(rstd, order), eps);
  using Accumulation = typename decltype(math)::accumulation_type;
  math.inverse_n = Accumulation(1) / static_cast<Accumulation>(n);
  launch_team_a_row(
      function, space, x_rows.extent(0),
      FinishKernel<decltype(math), decltype(sums_values)>{math, sums_values});
}

}  // namespace KokkosRMSNorm::Impl

#endif
