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
///
/// Lifetime: the memory is freed by release() or by the destructor. A
/// workspace that outlives Kokkos::finalize (a static, say) cannot free it
/// through Kokkos any more: its destructor then leaves it to the operating
/// system instead of aborting. A workspace is not copied: two copies would
/// share memory that two concurrent calls must not.
template <class ExecutionSpace>
class Workspace {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using memory_view = Kokkos::View<std::byte*, memory_space>;

  Workspace() : memory_() {}
  ~Workspace() {
    if (Kokkos::is_initialized()) {
      memory_.~memory_view();
    }
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// At least `bytes` of memory, allocated on `space` if the workspace holds
  /// less; the previous allocation is freed then.
  memory_view reserve(const ExecutionSpace& space, std::size_t bytes) {
    if (memory_.extent(0) < bytes) {
      release();
      memory_ =
          memory_view(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                         "KokkosRMSNorm::Workspace"),
                      bytes);
    }
    return memory_;
  }

  /// Frees the memory now; the next call that needs some allocates it again.
  void release() { memory_ = memory_view(); }

 private:
  // In a union, so that the destructor decides whether to destroy it.
  union {
    memory_view memory_;
  };
};

}  // namespace KokkosRMSNorm

#endif
