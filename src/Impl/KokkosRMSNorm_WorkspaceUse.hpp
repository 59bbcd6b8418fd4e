// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_WORKSPACEUSE_HPP
#define KOKKOSRMSNORM_IMPL_WORKSPACEUSE_HPP

#include <cstddef>
#include <mutex>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Workspace.hpp"

namespace KokkosRMSNorm::Impl {

// A call's use of its workspace (or of none, if null), from before its
// first use to after its last kernel is enqueued: it holds the workspace,
// so that a call from another host thread can neither grow it nor enqueue
// its own zeroing between this call's and its kernel. Constructing it
// checks that the workspace serves `space` (see Workspace).
template <class ExecutionSpace>
class WorkspaceUse {
 public:
  WorkspaceUse(const char* function, Workspace<ExecutionSpace>* workspace,
               const ExecutionSpace& space)
      : workspace_(workspace), space_(space) {
    if (workspace_) {
      lock_ = std::unique_lock<std::mutex>(workspace_->mutex_);
      workspace_->require_serves(function, space_);
    }
  }

  // Whether the call has a workspace.
  explicit operator bool() const { return workspace_ != nullptr; }

  // At least `bytes` of the workspace's memory (see Workspace::grow).
  std::byte* reserve(std::size_t bytes) {
    return workspace_->grow(space_, bytes).data();
  }

 private:
  Workspace<ExecutionSpace>* workspace_;
  ExecutionSpace space_;
  std::unique_lock<std::mutex> lock_;
};

}  // namespace KokkosRMSNorm::Impl

#endif
