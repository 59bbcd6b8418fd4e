// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_BACKWARD_HPP
#define KOKKOSRMSNORM_BACKWARD_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Backward.hpp"
#include "KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_Workspace.hpp"

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
  Impl::rms_norm_backward("KokkosRMSNorm::rms_norm_backward", space, dy, x,
                          weight, rstd, dx, dweight, workspace);
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
