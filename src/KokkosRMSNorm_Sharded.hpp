// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_SHARDED_HPP
#define KOKKOSRMSNORM_SHARDED_HPP

#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_None.hpp"
#include "Impl/KokkosRMSNorm_Sharded.hpp"
#include "Impl/KokkosRMSNorm_ShardedBackward.hpp"
#include "KokkosRMSNorm_Weight.hpp"

namespace KokkosRMSNorm {

/// RMSNorm of rows whose columns are sharded across processes (tensor
/// parallelism), in two halves with any communication between them: each
/// shard's sums of squares, added over the shards (one all-reduce of one
/// value a row, instead of gathering the rows), then each shard's scaling.
/// KokkosRMSNorm_MPI.hpp does the whole with MPI.
///
///   rms_norm_partial_sums(space, x_shard, sums);
///   // sums(i) += every other shard's sums(i), e.g. MPI_Allreduce
///   rms_norm_finish(space, x_shard, sums, n, weight_shard, y_shard, eps);
///
/// x_shard is a View as for rms_norm (rank 2 or 3) holding some columns of
/// the rows, possibly none; sums a View of one value a row of the
/// accumulation type (as rstd). Each call is one kernel, asynchronous on
/// `space`; bad arguments throw std::invalid_argument before it.

/// sums(i) = sum over the shard's columns of x(i, j)^2 (0 for no columns).
template <
    class ExecutionSpace, class XView, class SumsView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_partial_sums(const ExecutionSpace& space, const XView& x,
                           const SumsView& sums) {
  Impl::partial_sums("KokkosRMSNorm::rms_norm_partial_sums", space, x,
                     Impl::None(), Impl::None(), sums);
}

/// add_rms_norm's first half: sum = x + residual rounded to x's type (as
/// add_rms_norm, in place allowed), sums(i) = the row's sum of squares of
/// sum over the shard. Finish with rms_norm_finish on sum.
template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class SumsView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm_partial_sums(const ExecutionSpace& space, const XView& x,
                               const ResidualView& residual, const SumView& sum,
                               const SumsView& sums) {
  Impl::partial_sums("KokkosRMSNorm::add_rms_norm_partial_sums", space, x,
                     residual, sum, sums);
}

/// y = x * rstd(i) * weight factor (weight, one_plus(weight) or no_weight,
/// the shard's columns of it), rstd(i) = 1 / sqrt(sums(i) / n + eps), with
/// sums the whole rows' sums of squares and n their length. y may be x.
template <
    class ExecutionSpace, class XView, class SumsView, class Weight,
    class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_finish(const ExecutionSpace& space, const XView& x,
                     const SumsView& sums, std::size_t n, const Weight& weight,
                     const YView& y, double eps) {
  Impl::finish("KokkosRMSNorm::rms_norm_finish", space, x, sums, n, weight, y,
               eps, Impl::None());
}

/// The same, also storing rstd(i) to rstd, as rms_norm does.
template <
    class ExecutionSpace, class XView, class SumsView, class Weight,
    class YView, class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_finish(const ExecutionSpace& space, const XView& x,
                     const SumsView& sums, std::size_t n, const Weight& weight,
                     const YView& y, double eps, const RstdView& rstd) {
  Impl::finish("KokkosRMSNorm::rms_norm_finish", space, x, sums, n, weight, y,
               eps, rstd);
}

/// rms_norm_backward's halves over a shard. The first: sums(i) = sum over
/// the shard's columns of dy(i, j) * w(j) * x(i, j) (w the weight's factor);
/// after adding sums over the shards, the second gives the shard's dx and
/// its columns of dweight (or no_weight), as rms_norm_backward would for the
/// whole rows, n their length. dweight is summed over the rows in order, so
/// its bits are the same every call. rstd is as the forward pass stored it.
template <
    class ExecutionSpace, class DYView, class XView, class Weight,
    class SumsView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_backward_partial_sums(const ExecutionSpace& space,
                                    const DYView& dy, const XView& x,
                                    const Weight& weight,
                                    const SumsView& sums) {
  Impl::backward_partial_sums("KokkosRMSNorm::rms_norm_backward_partial_sums",
                              space, dy, x, weight, sums);
}

template <
    class ExecutionSpace, class DYView, class XView, class Weight,
    class RstdView, class SumsView, class DXView, class DWeight,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_backward_finish(const ExecutionSpace& space, const DYView& dy,
                              const XView& x, const Weight& weight,
                              const RstdView& rstd, const SumsView& sums,
                              std::size_t n, const DXView& dx,
                              const DWeight& dweight) {
  Impl::backward_finish("KokkosRMSNorm::rms_norm_backward_finish", space, dy, x,
                        weight, rstd, sums, n, dx, dweight);
}

}  // namespace KokkosRMSNorm

#endif
