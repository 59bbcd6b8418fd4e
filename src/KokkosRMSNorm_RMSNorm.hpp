// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_RMSNORM_HPP
#define KOKKOSRMSNORM_RMSNORM_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Forward.hpp"
#include "Impl/KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_Workspace.hpp"

namespace KokkosRMSNorm {

/// Normalizes each row of x by its root mean square and scales it by weight:
///
///   y(i, j) = x(i, j) * rstd(i) * weight(j),
///   rstd(i) = 1 / sqrt(sum_j x(i, j)^2 / N + eps).
///
/// x and y are Views of one value type (float, double, half_t, bhalf_t) and
/// one rank: 2 (rows x N), 3 (batch x sequence x N, or tokens x heads x N
/// with independent strides: the heads of a fused qkv buffer) or 4 (batch x
/// sequence x heads x N), normalized over the last extent; y may be x
/// itself. weight is a rank-1 View of length N, of any of those types;
/// one_plus(weight) applies (1 + weight(j)) instead and no_weight applies
/// none. Sums and products are computed in double for double and in float
/// otherwise. The call is asynchronous on `space`: it
/// launches one kernel, does not fence and does not allocate. Bad extents or
/// eps throw std::invalid_argument before any launch, leaving y untouched;
/// empty Views are a no-op.
template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, const XView& x, const Weight& weight,
              const YView& y, double eps) {
  Impl::rms_norm_forward("KokkosRMSNorm::rms_norm", space, x, Impl::None(),
                         Impl::None(), weight, y, Impl::None(), eps, nullptr);
}

/// The same, also storing each row's rstd(i) to rstd: a View of x's leading
/// extents (M, batch x sequence, ...) holding float (double for double x).
template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, const XView& x, const Weight& weight,
              const YView& y, double eps, const RstdView& rstd) {
  Impl::rms_norm_forward("KokkosRMSNorm::rms_norm", space, x, Impl::None(),
                         Impl::None(), weight, y, rstd, eps, nullptr);
}

/// The same, splitting long rows across teams where the backend allows it
/// (CUDA), which keeps them on chip so x is read once: rows of more than
/// 16384 floats, 8192 doubles or 32768 16-bit values are faster with a
/// workspace. The workspace grows on the first call of a shape (a few
/// bytes a row) and is then reused, as for rms_norm_backward; the kernel is
/// preceded by a memset of the row counters on `space`.
template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, const XView& x, const Weight& weight,
              const YView& y, double eps,
              Workspace<ExecutionSpace>& workspace) {
  Impl::rms_norm_forward("KokkosRMSNorm::rms_norm", space, x, Impl::None(),
                         Impl::None(), weight, y, Impl::None(), eps,
                         &workspace);
}

template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, const XView& x, const Weight& weight,
              const YView& y, double eps, const RstdView& rstd,
              Workspace<ExecutionSpace>& workspace) {
  Impl::rms_norm_forward("KokkosRMSNorm::rms_norm", space, x, Impl::None(),
                         Impl::None(), weight, y, rstd, eps, &workspace);
}

/// rms_norm on a default instance of x's execution space.
template <class XView, class Weight, class YView,
          class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void rms_norm(const XView& x, const Weight& weight, const YView& y,
              double eps) {
  rms_norm(typename XView::execution_space(), x, weight, y, eps);
}

template <class XView, class Weight, class YView, class RstdView,
          class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void rms_norm(const XView& x, const Weight& weight, const YView& y, double eps,
              const RstdView& rstd) {
  rms_norm(typename XView::execution_space(), x, weight, y, eps, rstd);
}

}  // namespace KokkosRMSNorm

#endif
