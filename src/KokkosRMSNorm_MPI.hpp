// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_MPI_HPP
#define KOKKOSRMSNORM_MPI_HPP

// The sharded norm over MPI (target KokkosRMSNorm::mpi): rows whose columns
// are split across the ranks of a communicator, normalized with one
// MPI_Allreduce of one value a row between the halves of
// KokkosRMSNorm_Sharded.hpp, instead of gathering the rows.

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Compat.hpp"
#include "Impl/KokkosRMSNorm_None.hpp"
#include "Impl/KokkosRMSNorm_Numerics.hpp"
#include "Impl/KokkosRMSNorm_Validate.hpp"
#include "KokkosRMSNorm_Sharded.hpp"
#include "KokkosRMSNorm_Weight.hpp"

namespace KokkosRMSNorm {

namespace Impl {

// Whether MPI may be handed memory of MemorySpace directly: host memory
// always; GPU memory when the MPI says it is CUDA-aware (Open MPI's
// MPIX_Query_cuda_support), else it is staged through the host.
template <class MemorySpace>
bool mpi_reaches() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           MemorySpace>::accessible) {
    return true;
  } else {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }
}

template <class T>
MPI_Datatype mpi_type() {
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}

// Checks the arguments on every rank with one collective, so that all
// ranks throw together: this rank's check(), which throws
// std::invalid_argument, and that every rank has `rows` rows. Returns the
// whole rows' length, the sum of the ranks' `columns`.
template <class Check>
std::size_t agree_on_shards(const char* function, MPI_Comm comm,
                            std::size_t rows, std::size_t columns,
                            const Check& check) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    throw_invalid(function, "MPI is not initialized");
  }
  if (comm == MPI_COMM_NULL) {
    throw_invalid(function, "the communicator is MPI_COMM_NULL");
  }
  std::string problem;
  try {
    check();
  } catch (const std::invalid_argument& error) {
    problem = error.what();
  }
  int size = 0;
  MPI_Comm_size(comm, &size);
  const long long mine[3] = {problem.empty() ? 0 : 1, (long long)rows,
                             (long long)columns};
  std::vector<long long> all(3 * std::size_t(size));
  MPI_Allgather(mine, 3, MPI_LONG_LONG, all.data(), 3, MPI_LONG_LONG, comm);
  long long failed = 0, fewest = all[1], most = all[1], n = 0;
  for (std::size_t r = 0; r < all.size(); r += 3) {
    failed += all[r];
    fewest = std::min(fewest, all[r + 1]);
    most = std::max(most, all[r + 1]);
    n += all[r + 2];
  }
  if (!problem.empty()) {
    throw std::invalid_argument(problem);
  }
  if (failed) {
    throw_invalid(function, std::to_string(failed) +
                                " other rank(s) rejected their arguments");
  }
  if (fewest != most) {
    throw_invalid(function, "the ranks' shards have from " +
                                std::to_string(fewest) + " to " +
                                std::to_string(most) +
                                " rows; every rank must hold the same rows");
  }
  return std::size_t(n);
}

// sums(i) = the sum over the ranks of sums(i), in place (a contiguous
// View).
template <class Sums>
void all_reduce_sums(MPI_Comm comm, const Sums& sums) {
  using T = typename Sums::non_const_value_type;
  if (mpi_reaches<typename Sums::memory_space>()) {
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), mpi_type<T>(),
                  MPI_SUM, comm);
  } else {
    const auto host = Kokkos::create_mirror_view(sums);
    Kokkos::deep_copy(host, sums);
    MPI_Allreduce(MPI_IN_PLACE, host.data(), int(host.size()), mpi_type<T>(),
                  MPI_SUM, comm);
    Kokkos::deep_copy(sums, host);
  }
}

// One sum a row of x, contiguous, as a View of x's rank minus one in the
// order of x's rows.
template <class ExecutionSpace, class XView>
auto row_sums_for(const ExecutionSpace& space, const XView& x) {
  using Accumulation =
      accumulation_type_t<typename XView::non_const_value_type>;
  using Memory = typename ExecutionSpace::memory_space;
  constexpr unsigned row_rank = XView::rank - 1;
  const auto label = Kokkos::view_alloc(space, "KokkosRMSNorm::sums");
  if constexpr (row_rank == 1) {
    return Kokkos::View<Accumulation*, Memory>(label, x.extent(0));
  } else {
    using Layout = std::conditional_t<
        std::is_same_v<typename XView::array_layout, Kokkos::LayoutLeft>,
        Kokkos::LayoutLeft, Kokkos::LayoutRight>;
    return Kokkos::View<Accumulation**, Layout, Memory>(label, x.extent(0),
                                                        x.extent(1));
  }
}

// The sharded norm of x, or of sum = x + residual (None for rms_norm): the
// partial sums, one all-reduce, the finish into y.
template <class ExecutionSpace, class XView, class ResidualView, class SumView,
          class Weight, class YView, class RstdView>
void rms_norm_over(const char* function, const ExecutionSpace& space,
                   MPI_Comm comm, const XView& x, const ResidualView& residual,
                   const SumView& sum, const Weight& weight, const YView& y,
                   double eps, const RstdView& rstd) {
  const ProfilingRegion region(function);
  const auto sums = row_sums_for(space, x);
  const auto normalized = [&] {
    if constexpr (is_none_v<SumView>) {
      return x;
    } else {
      return sum;
    }
  }();
  const std::size_t columns = x.extent(XView::rank - 1);
  const std::size_t n =
      agree_on_shards(function, comm, sums.size(), columns, [&] {
        check_partial_sums<ExecutionSpace>(function, x, residual, sum, sums);
        check_finish<ExecutionSpace>(function, normalized, sums, columns,
                                     weight, y, eps, rstd);
      });
  partial_sums(function, space, x, residual, sum, sums);
  space.fence();
  all_reduce_sums(comm, sums);
  finish(function, space, normalized, sums, n, weight, y, eps, rstd);
}

// The sharded backward pass: the partial sums of g * x, one all-reduce,
// the finish into dx and the shard's columns of dweight.
template <class ExecutionSpace, class DYView, class XView, class Weight,
          class RstdView, class DXView, class DWeight>
void rms_norm_backward_over(const char* function, const ExecutionSpace& space,
                            MPI_Comm comm, const DYView& dy, const XView& x,
                            const Weight& weight, const RstdView& rstd,
                            const DXView& dx, const DWeight& dweight) {
  const ProfilingRegion region(function);
  const auto sums = row_sums_for(space, x);
  const std::size_t columns = x.extent(XView::rank - 1);
  const std::size_t n =
      agree_on_shards(function, comm, sums.size(), columns, [&] {
        check_backward_shard<ExecutionSpace>(function, dy, x, weight, rstd,
                                             sums, dx, dweight);
      });
  backward_partial_sums(function, space, dy, x, weight, sums);
  space.fence();
  all_reduce_sums(comm, sums);
  backward_finish(function, space, dy, x, weight, rstd, sums, n, dx, dweight);
}

}  // namespace Impl

/// Normalizes rows whose columns are split across the ranks of `comm`:
/// x_shard holds this rank's columns (any number, none too), weight_shard
/// the same columns of the weight (or one_plus, no_weight), y_shard
/// receives them. Every rank calls it with the same rows; the call checks
/// on every rank, with one small collective, that the ranks agree, and
/// throws the same std::invalid_argument on each if they do not. Between
/// the halves (rms_norm_partial_sums, rms_norm_finish) it fences `space`
/// and all-reduces one value a row: on GPU memory directly if the MPI is
/// CUDA-aware, through the host otherwise. Allocates the row sums.
template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, MPI_Comm comm, const XView& x_shard,
              const Weight& weight_shard, const YView& y_shard, double eps) {
  Impl::rms_norm_over("KokkosRMSNorm::rms_norm (MPI)", space, comm, x_shard,
                      Impl::None(), Impl::None(), weight_shard, y_shard, eps,
                      Impl::None());
}

/// The same, also storing each row's rstd (every rank stores all of it).
template <
    class ExecutionSpace, class XView, class Weight, class YView,
    class RstdView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm(const ExecutionSpace& space, MPI_Comm comm, const XView& x_shard,
              const Weight& weight_shard, const YView& y_shard, double eps,
              const RstdView& rstd) {
  Impl::rms_norm_over("KokkosRMSNorm::rms_norm (MPI)", space, comm, x_shard,
                      Impl::None(), Impl::None(), weight_shard, y_shard, eps,
                      rstd);
}

/// add_rms_norm over sharded columns: sum_shard = x_shard + residual_shard,
/// y_shard its norm over the whole rows (in place as for add_rms_norm).
template <
    class ExecutionSpace, class XView, class ResidualView, class SumView,
    class Weight, class YView,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void add_rms_norm(const ExecutionSpace& space, MPI_Comm comm,
                  const XView& x_shard, const ResidualView& residual_shard,
                  const SumView& sum_shard, const Weight& weight_shard,
                  const YView& y_shard, double eps) {
  Impl::rms_norm_over("KokkosRMSNorm::add_rms_norm (MPI)", space, comm, x_shard,
                      residual_shard, sum_shard, weight_shard, y_shard, eps,
                      Impl::None());
}

/// rms_norm_backward over sharded columns: dx_shard and the shard's columns
/// of dweight (or no_weight), from one all-reduce of one value a row;
/// checked on every rank as rms_norm is. rstd is the whole rows' (as the
/// MPI rms_norm stores it on every rank).
template <
    class ExecutionSpace, class DYView, class XView, class Weight,
    class RstdView, class DXView, class DWeight,
    class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void rms_norm_backward(const ExecutionSpace& space, MPI_Comm comm,
                       const DYView& dy_shard, const XView& x_shard,
                       const Weight& weight_shard, const RstdView& rstd,
                       const DXView& dx_shard, const DWeight& dweight_shard) {
  Impl::rms_norm_backward_over("KokkosRMSNorm::rms_norm_backward (MPI)", space,
                               comm, dy_shard, x_shard, weight_shard, rstd,
                               dx_shard, dweight_shard);
}

}  // namespace KokkosRMSNorm

#endif
