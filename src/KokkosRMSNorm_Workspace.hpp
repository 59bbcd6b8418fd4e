// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_WORKSPACE_HPP
#define KOKKOSRMSNORM_WORKSPACE_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm {

/// Device memory that a call keeps its intermediate results in, kept from
/// call to call: rms_norm_backward's partial weight gradients (at most 1024
/// x N accumulation values on a GPU, 64 x N on a host), and on CUDA the
/// per-row sums of squares of rms_norm and add_rms_norm when they split
/// long rows across teams (a few values a row). A call allocates it only
/// when it holds less than the call needs, so calls after the first of a
/// shape neither allocate nor synchronize and can be captured into a CUDA
/// graph. Calls that may run concurrently (on two instances) need a
/// workspace each.
template <class ExecutionSpace>
class Workspace {
 public:
  using memory_space = typename ExecutionSpace::memory_space;

  /// At least `bytes` of memory, allocated on `space` if the workspace holds
  /// less; the previous allocation is freed then.
  Kokkos::View<std::byte*, memory_space> reserve(const ExecutionSpace& space,
                                                 std::size_t bytes) {
    if (memory_.extent(0) < bytes) {
      memory_ = {};
      memory_ = Kokkos::View<std::byte*, memory_space>(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                             "KokkosRMSNorm::Workspace"),
          bytes);
    }
    return memory_;
  }

 private:
  Kokkos::View<std::byte*, memory_space> memory_;
};

}  // namespace KokkosRMSNorm

#endif
