#ifndef KOKKOSRMSNORM_BACKWARD_HPP
#define KOKKOSRMSNORM_BACKWARD_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_BackwardKernel.hpp"
#include "Impl/KokkosRMSNorm_None.hpp"
#include "Impl/KokkosRMSNorm_Pack.hpp"
#include "Impl/KokkosRMSNorm_Requirements.hpp"
#include "Impl/KokkosRMSNorm_Rows.hpp"
#include "Impl/KokkosRMSNorm_Validate.hpp"
#include "Impl/KokkosRMSNorm_WeightFactors.hpp"
#include "KokkosRMSNorm_Workspace.hpp"
#include "KokkosRMSNorm_Weight.hpp"

namespace KokkosRMSNorm {

/// The gradients of y = rms_norm(x, weight, y, eps), given the gradient dy
/// of y and the rstd the forward pass stored (eps enters only through it).
/// With g(i, j) = dy(i, j) * w(j), w(j) the weight's factor (weight(j),
/// 1 + weight(j) for one_plus, 1 for no_weight):
///
///   dx(i, j)   = rstd(i) * g(i, j)
///                - x(i, j) * rstd(i)^3 * sum_k g(i, k) * x(i, k) / N,
///   dweight(j) = sum_i dy(i, j) * x(i, j) * rstd(i).
///
/// dy, x and dx are Views of one value type and rank (as for rms_norm); dx
/// may be dy. rstd is as rms_norm writes it. dweight is a rank-1 View of
/// length N of any supported type, or no_weight to skip it (it must be
/// no_weight when weight is). Sums run in the accumulation type; dweight is
/// summed per group of rows, then over the groups in a fixed order, without
/// atomics, in `workspace`, so a call gives the same bits every time. The
/// call is asynchronous on `space`: two kernel launches, no fence, and no
/// allocation once the workspace has grown to the shape.
template <
    class ExecutionSpace, class DYView, class XView, class Weight,
    class RstdView, class DXView, class DWeight,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_backward(const ExecutionSpace& space, const DYView& dy,
                       const XView& x, const Weight& weight,
                       const RstdView& rstd, const DXView& dx,
                       const DWeight& dweight,
                       Workspace<ExecutionSpace>& workspace) {
  constexpr const char* function = "rms_norm_backward";
  const auto weight_values = Impl::weight_view(weight);
  const auto dweight_values = Impl::weight_view(dweight);
  Impl::require_row_views<ExecutionSpace, XView, DYView, DXView>();
  using DWeightValues = decltype(Impl::weight_view(dweight));
  Impl::require_writable<DXView, DWeightValues>();
  Impl::require_weight_view<ExecutionSpace,
                            decltype(Impl::weight_view(weight))>();
  Impl::require_weight_view<ExecutionSpace, DWeightValues>();
  Impl::require_rstd_view<ExecutionSpace, RstdView, XView>();
  static_assert(
      !std::is_same_v<Weight, NoWeight> || std::is_same_v<DWeight, NoWeight>,
      "KokkosRMSNorm: a weightless RMSNorm has no weight gradient: "
      "pass no_weight as dweight");

  Impl::require_extents_of_x(function, "dy", dy, x);
  Impl::require_extents_of_x(function, "dx", dx, x);
  Impl::require_row_length(function, "weight", weight_values, x);
  Impl::require_row_length(function, "dweight", dweight_values, x);
  Impl::require_one_per_row(function, "rstd", rstd, x);
  const Impl::RowOrder order = Impl::common_row_order(function, x, dx);
  constexpr unsigned row_rank = XView::rank - 1;
  Impl::require_row_order<row_rank>(function, "dy", dy, order);
  Impl::require_row_order<row_rank>(function, "rstd", rstd, order);
  if (x.extent(XView::rank - 1) == 0) {
    return;
  }

  using T = typename XView::non_const_value_type;
  constexpr int width = Impl::vector_width_v<T>;

  const auto dy_rows = Impl::as_rows(dy, order);
  const auto x_rows = Impl::as_rows(x, order);
  const auto dx_rows = Impl::as_rows(dx, order);
  const auto rstd_values = Impl::as_row_values(rstd, order);
  const auto launch = [&](auto packs_width) {
    constexpr int width_used = decltype(packs_width)::value;
    const std::size_t bytes =
        Impl::is_none_v<DWeightValues>
            ? 0
            : Impl::backward_workspace_bytes<width_used, ExecutionSpace, T>(
                  x_rows.extent(0), x_rows.extent(1) / width_used);
    Impl::launch_rms_norm_backward<width_used>(
        space, dy_rows, x_rows, weight, rstd_values, dx_rows, dweight_values,
        workspace.reserve(space, bytes).data());
  };
  if (Impl::rows_fit_packs<width>(dy_rows) &&
      Impl::rows_fit_packs<width>(x_rows) &&
      Impl::rows_fit_packs<width>(dx_rows) &&
      Impl::row_fits_packs<width>(weight_values) &&
      Impl::row_fits_packs<width>(dweight_values)) {
    launch(std::integral_constant<int, width>());
  } else {
    launch(std::integral_constant<int, 1>());
  }
}

/// rms_norm_backward on a default instance of x's execution space.
template <class DYView, class XView, class Weight, class RstdView, class DXView,
          class DWeight,
          class = std::enable_if_t<Kokkos::is_view<DYView>::value>>
void rms_norm_backward(const DYView& dy, const XView& x, const Weight& weight,
                       const RstdView& rstd, const DXView& dx,
                       const DWeight& dweight,
                       Workspace<typename XView::execution_space>& workspace) {
  rms_norm_backward(typename XView::execution_space(), dy, x, weight, rstd, dx,
                    dweight, workspace);
}

}  // namespace KokkosRMSNorm

#endif
