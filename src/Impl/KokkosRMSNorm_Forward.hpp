// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_FORWARD_HPP
#define KOKKOSRMSNORM_IMPL_FORWARD_HPP

#include <Kokkos_Core.hpp>

#include "Backends/KokkosRMSNorm_Backend.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_ForwardKernel.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Overlap.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_QuantizedOutput.hpp"
#include "KokkosRMSNorm_Requirements.hpp"
#include "KokkosRMSNorm_RowMath.hpp"
#include "KokkosRMSNorm_RowSplit.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_ShiftedRows.hpp"
#include "KokkosRMSNorm_Validate.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"
#include "KokkosRMSNorm_WorkspaceUse.hpp"

namespace KokkosRMSNorm::Impl {

// Launches the kernel for `math`: the backend's own (host), or the team
// kernel in the shape its backend chooses for the rows, which may split rows
// across teams only where a workspace is given.
template <class ExecutionSpace, class Math>
void launch_in_chosen_shape(const char* label, const ExecutionSpace& space,
                            const Math& math,
                            WorkspaceUse<ExecutionSpace>& workspace) {
  using backend = Backend<ExecutionSpace>;
  if constexpr (!backend::uses_team_kernels) {
    backend::launch_rows(label, space, math);
  } else {
    const LaunchShape shape = choose_launch_shape<ExecutionSpace>(
        RowFacts::of(math, workspace ? max_teams_per_row(space) : 1));
    using Split = RowSplit<typename Math::accumulation_type>;
    launch_rms_norm(
        label, space, math, shape,
        shape.teams_per_row > 1
            ? workspace.reserve(Split::bytes(math.rows(), shape.teams_per_row))
            : nullptr);
  }
}

// What rms_norm and add_rms_norm share, in a profiling region and with
// kernels named after `function` ("KokkosRMSNorm::rms_norm"): check every
// argument, then launch one kernel over rows of 16-byte Packs where every
// row argument and the weight allow it; over the aligned Packs that overlap
// the rows where the rows are contiguous and lead alike (ShiftedPackRows:
// an odd N, a View one value in) and hold values of 32 bits or more;
// element by element otherwise. residual, sum and rstd may be None,
// workspace null; y holds x's type, or a Quantization's codes.
template <class ExecutionSpace, class XView, class ResidualView, class SumView,
          class Weight, class YView, class RstdView, class Quantization = None>
void rms_norm_forward(
    const char* function, const ExecutionSpace& space, const XView& x,
    const ResidualView& residual, const SumView& sum, const Weight& weight,
    const YView& y, const RstdView& rstd, double eps,
    Workspace<typename ExecutionSpace::execution_space>* workspace,
    const Quantization& quantization = {}) {
  const ProfilingRegion region(function);
  const auto weight_values = weight_view(weight);
  if constexpr (is_none_v<Quantization>) {
    require_row_views<ExecutionSpace, XView, ResidualView, SumView, YView>();
  } else {
    require_row_views<ExecutionSpace, XView, ResidualView, SumView>();
    require_quantized_views<ExecutionSpace, YView, XView,
                            decltype(quantization.scales)>();
  }
  require_writable<SumView, YView, RstdView>();
  require_weight_view<ExecutionSpace, decltype(weight_view(weight))>();
  require_rstd_view<ExecutionSpace, RstdView, XView>();

  require_extents_of_x(function, "y", y, x);
  require_extents_of_x(function, "residual", residual, x);
  require_extents_of_x(function, "sum", sum, x);
  require_row_length(function, "weight", weight_values, x);
  require_one_per_row(function, "rstd", rstd, x);
  require_valid_eps(function, eps, x);
  const RowOrder order = common_row_order(function, x, y);
  constexpr unsigned row_rank = XView::rank - 1;
  require_row_order<row_rank>(function, "residual", residual, order);
  require_row_order<row_rank>(function, "sum", sum, order);
  require_row_order<row_rank>(function, "rstd", rstd, order);
  const auto output = quantized_output(function, quantization, x, order);
  WorkspaceUse<ExecutionSpace> workspace_use(function, workspace, space);
  if (x.size() == 0) {
    return;
  }

  const auto x_rows = as_rows(x, order);
  const auto residual_rows = as_rows(residual, order);
  const auto sum_rows = as_rows(sum, order);
  const auto y_rows = as_rows(y, order);
  const auto rstd_values = as_row_values(rstd, order);
  // Row arguments may be one View (each element is read before it is
  // written, by one lane); nothing else may share an output's memory.
  require_apart<true>(function, "y", y_rows, "x", x_rows);
  require_apart<true>(function, "y", y_rows, "residual", residual_rows);
  require_apart<true>(function, "y", y_rows, "sum", sum_rows);
  require_apart(function, "y", y_rows, "weight", weight_values);
  require_apart<true>(function, "sum", sum_rows, "x", x_rows);
  require_apart<true>(function, "sum", sum_rows, "residual", residual_rows);
  require_apart(function, "sum", sum_rows, "weight", weight_values);
  require_apart(function, "rstd", rstd_values, "x", x_rows);
  require_apart(function, "rstd", rstd_values, "residual", residual_rows);
  require_apart(function, "rstd", rstd_values, "sum", sum_rows);
  require_apart(function, "rstd", rstd_values, "y", y_rows);
  require_apart(function, "rstd", rstd_values, "weight", weight_values);
  if constexpr (!is_none_v<Quantization>) {
    const auto& scales = output.scales;
    require_apart(function, "scales", scales, "x", x_rows);
    require_apart(function, "scales", scales, "residual", residual_rows);
    require_apart(function, "scales", scales, "sum", sum_rows);
    require_apart(function, "scales", scales, "y", y_rows);
    require_apart(function, "scales", scales, "rstd", rstd_values);
    require_apart(function, "scales", scales, "weight", weight_values);
  }
  using value_type = typename XView::non_const_value_type;
  constexpr int width = vector_width_v<value_type>;
  // Shifted 16-bit rows ran at 17-22% of the copy on the H200, where element
  // by element ran at 12-29% (log 63): not yet worth their kernels.
  constexpr bool shifts_packs = sizeof(value_type) >= 4;
  if (rows_fit_packs<width>(x_rows) && rows_fit_packs<width>(residual_rows) &&
      rows_fit_packs<width>(sum_rows) && rows_fit_packs<width>(y_rows) &&
      row_fits_packs<width>(weight_values)) {
    launch_in_chosen_shape(
        function, space,
        make_row_math<width>(x_rows, residual_rows, sum_rows, weight, y_rows,
                             rstd_values, eps, output),
        workspace_use);
  } else if (shifts_packs && rows_lead_as<width>(x_rows, x_rows) &&
             rows_lead_as<width>(residual_rows, x_rows) &&
             rows_lead_as<width>(sum_rows, x_rows) &&
             rows_lead_as<width>(y_rows, x_rows)) {
    if constexpr (shifts_packs) {
      launch_in_chosen_shape(function, space,
                             make_row_math<width, RowStarts::anywhere>(
                                 x_rows, residual_rows, sum_rows, weight,
                                 y_rows, rstd_values, eps, output),
                             workspace_use);
    }
  } else {
    launch_in_chosen_shape(
        function, space,
        make_row_math<1>(x_rows, residual_rows, sum_rows, weight, y_rows,
                         rstd_values, eps, output),
        workspace_use);
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
