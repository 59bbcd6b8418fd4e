// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_FORWARD_HPP
#define KOKKOSRMSNORM_IMPL_FORWARD_HPP

#include <cstddef>
#include <optional>

#include <Kokkos_Core.hpp>

#include "Backends/KokkosRMSNorm_Backend.hpp"
#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_ForwardKernel.hpp"
#include "KokkosRMSNorm_HeadRows.hpp"
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

// Throws std::invalid_argument if an output of rms_norm_forward shares
// memory with another argument: row arguments may be one View (each element
// is read before it is written, by one lane); nothing else may.
template <class XRows, class ResidualRows, class SumRows, class WeightValues,
          class YRows, class RstdValues, class Output>
void require_forward_outputs_apart(const char* function, const XRows& x,
                                   const ResidualRows& residual,
                                   const SumRows& sum,
                                   const WeightValues& weight, const YRows& y,
                                   const RstdValues& rstd,
                                   const Output& output) {
  require_apart<true>(function, "y", y, "x", x);
  require_apart<true>(function, "y", y, "residual", residual);
  require_apart<true>(function, "y", y, "sum", sum);
  require_apart(function, "y", y, "weight", weight);
  require_apart<true>(function, "sum", sum, "x", x);
  require_apart<true>(function, "sum", sum, "residual", residual);
  require_apart(function, "sum", sum, "weight", weight);
  require_apart(function, "rstd", rstd, "x", x);
  require_apart(function, "rstd", rstd, "residual", residual);
  require_apart(function, "rstd", rstd, "sum", sum);
  require_apart(function, "rstd", rstd, "y", y);
  require_apart(function, "rstd", rstd, "weight", weight);
  if constexpr (!is_none_v<Output>) {
    const auto& scales = output.scales;
    require_apart(function, "scales", scales, "x", x);
    require_apart(function, "scales", scales, "residual", residual);
    require_apart(function, "scales", scales, "sum", sum);
    require_apart(function, "scales", scales, "y", y);
    require_apart(function, "scales", scales, "rstd", rstd);
    require_apart(function, "scales", scales, "weight", weight);
  }
}

// Launches rms_norm_forward's kernel on its rows (rank-2 Views or
// HeadRows) once they are known apart: over rows of 16-byte Packs where
// every row argument and the weight allow it; over the aligned Packs that
// overlap the rows where rank-2 rows are contiguous and lead alike
// (ShiftedPackRows: an odd N, a View one value in), on a GPU or of values of
// 32 bits or more; element by element otherwise. Rows of StaticN values (0:
// known at run time only) have it as a constant in the kernel.
template <std::size_t StaticN, class ExecutionSpace, class XRows,
          class ResidualRows, class SumRows, class Weight, class YRows,
          class RstdValues, class Output>
void launch_forward(const char* function, const ExecutionSpace& space,
                    const XRows& x, const ResidualRows& residual,
                    const SumRows& sum, const Weight& weight, const YRows& y,
                    const RstdValues& rstd, double eps, const Output& output,
                    WorkspaceUse<ExecutionSpace>& workspace) {
  const auto weight_values = weight_view(weight);
  require_forward_outputs_apart(function, x, residual, sum, weight_values, y,
                                rstd, output);
  using value_type = typename XRows::non_const_value_type;
  constexpr int width = vector_width_v<value_type>;
  if (rows_fit_packs<width>(x) && rows_fit_packs<width>(residual) &&
      rows_fit_packs<width>(sum) && rows_fit_packs<width>(y) &&
      row_fits_packs<width>(weight_values)) {
    return launch_in_chosen_shape(
        function, space,
        make_row_math<width, RowStarts::on_packs, StaticN>(
            x, residual, sum, weight, y, rstd, eps, output),
        workspace);
  }
  if constexpr (!is_head_rows_v<XRows> &&
                Backend<ExecutionSpace>::template reads_shifted_packs<
                    value_type>()) {
    if (rows_lead_as<width>(x, x) && rows_lead_as<width>(residual, x) &&
        rows_lead_as<width>(sum, x) && rows_lead_as<width>(y, x)) {
      return launch_in_chosen_shape(
          function, space,
          make_row_math<width, RowStarts::anywhere>(x, residual, sum, weight, y,
                                                    rstd, eps, output),
          workspace);
    }
  }
  launch_in_chosen_shape(function, space,
                         make_row_math<1, RowStarts::on_packs, StaticN>(
                             x, residual, sum, weight, y, rstd, eps, output),
                         workspace);
}

// rms_norm_forward past the checks of types and extents, on x of rank 2 or
// 3, with rows(view) the rows of a row argument and values(name, view)
// those of one value a row, checked; rows of StaticN values (or 0).
template <std::size_t StaticN, class ExecutionSpace, class XView,
          class ResidualView, class SumView, class Weight, class YView,
          class RstdView, class Quantization, class Rows, class Values>
void normalize(const char* function, const ExecutionSpace& space,
               const XView& x, const ResidualView& residual, const SumView& sum,
               const Weight& weight, const YView& y, const RstdView& rstd,
               double eps,
               Workspace<typename ExecutionSpace::execution_space>* workspace,
               const Quantization& quantization, const Rows& rows,
               const Values& values) {
  const auto rstd_values = values("rstd", rstd);
  const auto output = quantized_output(function, quantization, x, values);
  WorkspaceUse<ExecutionSpace> workspace_use(function, workspace, space);
  if (x.size() > 0) {
    launch_forward<StaticN>(function, space, rows(x), rows(residual), rows(sum),
                            weight, rows(y), rstd_values, eps, output,
                            workspace_use);
  }
}

// The rows of rms_norm_forward's arguments: rank-2 Views where one order
// spaces them evenly for every row argument; otherwise (rank-3 rows such as
// the heads of a fused qkv buffer) HeadRows, each argument by its own
// strides, with HeadValues. Rows of StaticN values (or 0).
template <std::size_t StaticN, class ExecutionSpace, class XView,
          class ResidualView, class SumView, class Weight, class YView,
          class RstdView, class Quantization>
void normalize_rows(
    const char* function, const ExecutionSpace& space, const XView& x,
    const ResidualView& residual, const SumView& sum, const Weight& weight,
    const YView& y, const RstdView& rstd, double eps,
    Workspace<typename ExecutionSpace::execution_space>* workspace,
    const Quantization& quantization) {
  constexpr unsigned row_rank = XView::rank - 1;
  const std::optional<RowOrder> order =
      shared_row_order<row_rank>(x, y, residual, sum);
  if (order) {
    normalize<StaticN>(
        function, space, x, residual, sum, weight, y, rstd, eps, workspace,
        quantization, [&](const auto& view) { return as_rows(view, *order); },
        [&](const char* name, const auto& view) {
          require_row_order<row_rank>(function, name, view, *order);
          return as_row_values(view, *order);
        });
  } else if constexpr (XView::rank == 3) {
    normalize<StaticN>(
        function, space, x, residual, sum, weight, y, rstd, eps, workspace,
        quantization, [](const auto& view) { return as_head_rows(view); },
        [](const char*, const auto& view) { return as_head_values(view); });
  }
}

// What rms_norm and add_rms_norm share, in a profiling region and with
// kernels named after `function` ("KokkosRMSNorm::rms_norm"): check every
// argument, then launch one kernel (see launch_forward). residual, sum and
// rstd may be None, workspace null; y holds x's type, or a Quantization's
// codes. Rank-4 rows (batch, sequence, heads, N) are normalized as the
// rank-3 rows of their merged tokens. A View whose type fixes the row
// length (View<T*[4096]>) gets kernels specialised on it.
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
  if constexpr (XView::rank == 4) {
    const RowOrder order = token_order(function, x);
    const auto merged = [&](const char* name, const auto& view) {
      return tokens_merged(function, name, view, order);
    };
    normalize_rows<static_row_length_v<XView>>(
        function, space, merged("x", x), merged("residual", residual),
        merged("sum", sum), weight, merged("y", y), merged("rstd", rstd), eps,
        workspace, tokens_merged(function, quantization, order));
  } else {
    normalize_rows<static_row_length_v<XView>>(function, space, x, residual,
                                               sum, weight, y, rstd, eps,
                                               workspace, quantization);
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
