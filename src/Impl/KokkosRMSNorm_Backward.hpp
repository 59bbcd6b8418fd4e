// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKWARD_HPP
#define KOKKOSRMSNORM_IMPL_BACKWARD_HPP

#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Weight.hpp"
#include "../KokkosRMSNorm_Workspace.hpp"
#include "KokkosRMSNorm_BackwardKernel.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Overlap.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_Requirements.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_Validate.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"
#include "KokkosRMSNorm_WorkspaceUse.hpp"

namespace KokkosRMSNorm::Impl {

// rms_norm_backward, in a profiling region and with kernels named after
// `function`: check every argument, then launch the backward kernel over
// rows of 16-byte Packs where every row argument and the weights allow it,
// element by element otherwise.
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class RstdView, class DXView, class DWeight>
void rms_norm_backward(const char* function, const ExecutionSpace& space,
                       const DYView& dy, const XView& x, const Weight& weight,
                       const RstdView& rstd, const DXView& dx,
                       const DWeight& dweight,
                       Workspace<ExecutionSpace>& workspace) {
  const ProfilingRegion region(function);
  const auto weight_values = weight_view(weight);
  const auto dweight_values = weight_view(dweight);
  require_row_views<ExecutionSpace, XView, DYView, DXView>();
  using DWeightValues = decltype(weight_view(dweight));
  require_writable<DXView, DWeightValues>();
  require_weight_view<ExecutionSpace, decltype(weight_view(weight))>();
  require_weight_view<ExecutionSpace, DWeightValues>();
  require_rstd_view<ExecutionSpace, RstdView, XView>();
  static_assert(
      !std::is_same_v<Weight, NoWeight> || std::is_same_v<DWeight, NoWeight>,
      "KokkosRMSNorm: a weightless RMSNorm has no weight gradient: "
      "pass no_weight as dweight");

  require_extents_of_x(function, "dy", dy, x);
  require_extents_of_x(function, "dx", dx, x);
  require_row_length(function, "weight", weight_values, x);
  require_row_length(function, "dweight", dweight_values, x);
  require_one_per_row(function, "rstd", rstd, x);
  const RowOrder order = common_row_order(function, x, dx);
  constexpr unsigned row_rank = XView::rank - 1;
  require_row_order<row_rank>(function, "dy", dy, order);
  require_row_order<row_rank>(function, "rstd", rstd, order);
  WorkspaceUse<ExecutionSpace> workspace_use(function, &workspace, space);
  if (x.extent(XView::rank - 1) == 0) {
    return;
  }

  using T = typename XView::non_const_value_type;
  constexpr int width = vector_width_v<T>;

  const auto dy_rows = as_rows(dy, order);
  const auto x_rows = as_rows(x, order);
  const auto dx_rows = as_rows(dx, order);
  const auto rstd_values = as_row_values(rstd, order);
  // dx may be dy; nothing else may share an output's memory.
  require_apart<true>(function, "dx", dx_rows, "dy", dy_rows);
  require_apart(function, "dx", dx_rows, "x", x_rows);
  require_apart(function, "dx", dx_rows, "weight", weight_values);
  require_apart(function, "dx", dx_rows, "rstd", rstd_values);
  require_apart(function, "dweight", dweight_values, "dy", dy_rows);
  require_apart(function, "dweight", dweight_values, "x", x_rows);
  require_apart(function, "dweight", dweight_values, "weight", weight_values);
  require_apart(function, "dweight", dweight_values, "rstd", rstd_values);
  require_apart(function, "dweight", dweight_values, "dx", dx_rows);
  const auto launch = [&](auto packs_width) {
    constexpr int width_used = decltype(packs_width)::value;
    const std::size_t bytes =
        is_none_v<DWeightValues>
            ? 0
            : backward_workspace_bytes<width_used, ExecutionSpace, T>(
                  x_rows.extent(0), x_rows.extent(1) / width_used);
    launch_rms_norm_backward<width_used>(space, dy_rows, x_rows, weight,
                                         rstd_values, dx_rows, dweight_values,
                                         workspace_use.reserve(bytes));
  };
  if (rows_fit_packs<width>(dy_rows) && rows_fit_packs<width>(x_rows) &&
      rows_fit_packs<width>(dx_rows) && row_fits_packs<width>(weight_values) &&
      row_fits_packs<width>(dweight_values)) {
    launch(std::integral_constant<int, width>());
  } else {
    launch(std::integral_constant<int, 1>());
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
