// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_ADDRMSNORM_HPP
#define KOKKOSRMSNORM_ADDRMSNORM_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Forward.hpp"
#include "Impl/KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_Workspace.hpp"

namespace KokkosRMSNorm {

/// Adds a residual and normalizes the sum, in one pass over memory:
///
///   sum(i, j) = x(i, j) + residual(i, j), rounded to x's type,
///   y = rms_norm(sum, weight, eps).
///
/// x, residual, sum and y are Views of one value type and one rank; any of
/// them may be the same View as another (vLLM's fused_add_rms_norm: sum is
/// residual and y is x), but they may not otherwise share memory. Everything
/// else is as for rms_norm, rstd included.
template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm(const ExecutionSpace& space, const XView& x,
                  const ResidualView& residual, const SumView& sum,
                  const Weight& weight, const YView& y, double eps) {
  Impl::rms_norm_forward("KokkosRMSNorm::add_rms_norm", space, x, residual, sum,
                         weight, y, Impl::None(), eps, nullptr);
}

template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView, class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm(const ExecutionSpace& space, const XView& x,
                  const ResidualView& residual, const SumView& sum,
                  const Weight& weight, const YView& y, double eps,
                  const RstdView& rstd) {
  Impl::rms_norm_forward("KokkosRMSNorm::add_rms_norm", space, x, residual, sum,
                         weight, y, rstd, eps, nullptr);
}

/// The same, splitting long rows across teams as rms_norm does with a
/// workspace.
template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm(const ExecutionSpace& space, const XView& x,
                  const ResidualView& residual, const SumView& sum,
                  const Weight& weight, const YView& y, double eps,
                  Workspace<ExecutionSpace>& workspace) {
  Impl::rms_norm_forward("KokkosRMSNorm::add_rms_norm", space, x, residual, sum,
                         weight, y, Impl::None(), eps, &workspace);
}

template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView, class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm(const ExecutionSpace& space, const XView& x,
                  const ResidualView& residual, const SumView& sum,
                  const Weight& weight, const YView& y, double eps,
                  const RstdView& rstd, Workspace<ExecutionSpace>& workspace) {
  Impl::rms_norm_forward("KokkosRMSNorm::add_rms_norm", space, x, residual, sum,
                         weight, y, rstd, eps, &workspace);
}

/// add_rms_norm on a default instance of x's execution space.
template <class XView, class ResidualView, class SumView, class Weight,
          class YView, class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void add_rms_norm(const XView& x, const ResidualView& residual,
                  const SumView& sum, const Weight& weight, const YView& y,
                  double eps) {
  add_rms_norm(typename XView::execution_space(), x, residual, sum, weight, y,
               eps);
}

template <class XView, class ResidualView, class SumView, class Weight,
          class YView, class RstdView,
          class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void add_rms_norm(const XView& x, const ResidualView& residual,
                  const SumView& sum, const Weight& weight, const YView& y,
                  double eps, const RstdView& rstd) {
  add_rms_norm(typename XView::execution_space(), x, residual, sum, weight, y,
               eps, rstd);
}

}  // namespace KokkosRMSNorm

#endif
