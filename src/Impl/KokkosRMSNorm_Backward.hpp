// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKWARD_HPP
#define KOKKOSRMSNORM_IMPL_BACKWARD_HPP

#include <cstddef>
#include <optional>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Weight.hpp"
#include "../KokkosRMSNorm_Workspace.hpp"
#include "KokkosRMSNorm_BackwardKernel.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_HeadRows.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Overlap.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_Requirements.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_Validate.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"
#include "KokkosRMSNorm_WorkspaceUse.hpp"

namespace KokkosRMSNorm::Impl {

// Launches the backward pass on its rows (rank-2 Views or HeadRows) once
// they are known apart: over rows of 16-byte Packs where every row argument
// and the weights allow it, element by element otherwise.
template <class ExecutionSpace, class DYRows, class XRows, class Weight,
          class RstdValues, class DXRows, class DWeightValues>
void launch_backward(const char* function, const ExecutionSpace& space,
                     const DYRows& dy, const XRows& x, const Weight& weight,
                     const RstdValues& rstd, const DXRows& dx,
                     const DWeightValues& dweight,
                     WorkspaceUse<ExecutionSpace>& workspace) {
  const auto weight_values = weight_view(weight);
  // dx may be dy; nothing else may share an output's memory.
  require_apart<true>(function, "dx", dx, "dy", dy);
  require_apart(function, "dx", dx, "x", x);
  require_apart(function, "dx", dx, "weight", weight_values);
  require_apart(function, "dx", dx, "rstd", rstd);
  require_apart(function, "dweight", dweight, "dy", dy);
  require_apart(function, "dweight", dweight, "x", x);
  require_apart(function, "dweight", dweight, "weight", weight_values);
  require_apart(function, "dweight", dweight, "rstd", rstd);
  require_apart(function, "dweight", dweight, "dx", dx);
  using T = typename XRows::non_const_value_type;
  const auto launch = [&](auto packs_width) {
    constexpr int width_used = decltype(packs_width)::value;
    const std::size_t bytes =
        is_none_v<DWeightValues>
            ? 0
            : backward_workspace_bytes<width_used, ExecutionSpace, T>(
                  x.extent(0), x.extent(1) / width_used);
    launch_rms_norm_backward<width_used>(space, dy, x, weight, rstd, dx,
                                         dweight, workspace.reserve(bytes));
  };
  constexpr int width = vector_width_v<T>;
  if (rows_fit_packs<width>(dy) && rows_fit_packs<width>(x) &&
      rows_fit_packs<width>(dx) && row_fits_packs<width>(weight_values) &&
      row_fits_packs<width>(dweight)) {
    launch(std::integral_constant<int, width>());
  } else {
    launch(std::integral_constant<int, 1>());
  }
}

// rms_norm_backward past the checks of types and extents, on x of rank 2 or
// 3, its rows taken as rms_norm_forward takes them (see normalize_rows).
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class RstdView, class DXView, class DWeightValues>
void backward_rows(const char* function, const ExecutionSpace& space,
                   const DYView& dy, const XView& x, const Weight& weight,
                   const RstdView& rstd, const DXView& dx,
                   const DWeightValues& dweight,
                   Workspace<ExecutionSpace>& workspace) {
  const auto launch = [&](const auto& rows, const auto& rstd_values) {
    WorkspaceUse<ExecutionSpace> workspace_use(function, &workspace, space);
    if (x.extent(XView::rank - 1) > 0) {
      launch_backward(function, space, rows(dy), rows(x), weight, rstd_values,
                      rows(dx), dweight, workspace_use);
    }
  };
  constexpr unsigned row_rank = XView::rank - 1;
  const std::optional<RowOrder> order = shared_row_order<row_rank>(x, dx, dy);
  if (order) {
    require_row_order<row_rank>(function, "rstd", rstd, *order);
    launch([&](const auto& view) { return as_rows(view, *order); },
           as_row_values(rstd, *order));
  } else if constexpr (XView::rank == 3) {
    launch([](const auto& view) { return as_head_rows(view); },
           as_head_values(rstd));
  }
}

// rms_norm_backward, in a profiling region and with kernels named after
// `function`: check every argument, then launch the backward kernel (see
// launch_backward). Rank-4 rows are those of their merged tokens.
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
  if constexpr (XView::rank == 4) {
    const RowOrder order = token_order(function, x);
    const auto merged = [&](const char* name, const auto& view) {
      return tokens_merged(function, name, view, order);
    };
    backward_rows(function, space, merged("dy", dy), merged("x", x), weight,
                  merged("rstd", rstd), merged("dx", dx), dweight_values,
                  workspace);
  } else {
    backward_rows(function, space, dy, x, weight, rstd, dx, dweight_values,
                  workspace);
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
