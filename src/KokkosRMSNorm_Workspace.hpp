// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_WORKSPACE_HPP
#define KOKKOSRMSNORM_WORKSPACE_HPP

#include <cstddef>
#include <mutex>
#include <optional>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Compat.hpp"
#include "Impl/KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm {

namespace Impl {
template <class ExecutionSpace>
class WorkspaceUse;
}  // namespace Impl

/// Device memory that a call keeps its intermediate results in, kept from
/// call to call: rms_norm_backward's partial weight gradients (at most 1024
/// x N accumulation values on a GPU, 64 x N on a host), and on CUDA the
/// per-row sums of squares of rms_norm and add_rms_norm when they split
/// long rows across teams (a few values a row). A call allocates it only
/// when it holds less than the call needs, so calls after the first of a
/// shape neither allocate nor synchronize and can be captured into a CUDA
/// graph.
///
/// Instances: a workspace serves the execution space instance of the first
/// call that uses its memory; a call on another instance throws
/// std::invalid_argument (on Kokkos before 4.1, which cannot compare
/// instances, it is not checked), since two calls running at once on two
/// instances must not share the memory. Give each instance its own
/// workspace, or release() one to serve another. Calls from several host
/// threads on the one instance may share a workspace: each holds it while
/// it enqueues its work.
///
/// Lifetime: the memory is freed by release() or by the destructor. A
/// workspace that outlives Kokkos::finalize (a static, say) cannot free it
/// through Kokkos any more: its destructor then leaves it to the operating
/// system instead of aborting. A workspace is neither copied nor moved.
template <class ExecutionSpace>
class Workspace {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using memory_view = Kokkos::View<std::byte*, memory_space>;

  Workspace() : held_() {}
  ~Workspace() {
    if (Kokkos::is_initialized()) {
      held_.~Held();
    }
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// At least `bytes` of memory, allocated on `space` if the workspace holds
  /// less; the previous allocation is freed when no View of it is left.
  /// Throws std::invalid_argument if the workspace serves another instance.
  /// The View returned may be dropped on any host thread only where Kokkos
  /// counts references atomically (any Kokkos with a parallel backend).
  memory_view reserve(const ExecutionSpace& space, std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    require_serves("KokkosRMSNorm::Workspace::reserve", space);
    return grow(space, bytes);
  }

  /// Frees the memory now and serves no instance any more; the next call
  /// that needs memory allocates it again.
  void release() {
    const std::lock_guard<std::mutex> lock(mutex_);
    held_.memory = memory_view();
    held_.instance.reset();
  }

 private:
  friend class Impl::WorkspaceUse<ExecutionSpace>;

  // Throws unless the workspace serves `space` or no instance yet.
  void require_serves(const char* function, const ExecutionSpace& space) const {
    if (held_.instance && !Impl::same_instance(*held_.instance, space)) {
      Impl::throw_invalid(function,
                          "workspace serves another execution space instance "
                          "than this call's; give each instance its own "
                          "workspace, or release() it first");
    }
  }

  // The memory, grown on `space` to at least `bytes`; the workspace serves
  // `space` from now.
  memory_view grow(const ExecutionSpace& space, std::size_t bytes) {
    if (held_.memory.extent(0) < bytes) {
      held_.memory = memory_view();
      held_.memory =
          memory_view(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                         "KokkosRMSNorm::Workspace"),
                      bytes);
    }
    held_.instance = space;
    return held_.memory;
  }

  struct Held {
    memory_view memory;
    std::optional<ExecutionSpace> instance;  // the one served, once bound
  };
  // In a union, so that the destructor decides whether to destroy it.
  union {
    Held held_;
  };
  std::mutex mutex_;
};

}  // namespace KokkosRMSNorm

#endif
