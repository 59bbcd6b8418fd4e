// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_BACKEND_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_BACKEND_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Cuda/KokkosRMSNorm_CudaBackend.hpp"
#include "Gpu/KokkosRMSNorm_GpuBackend.hpp"
#include "Host/KokkosRMSNorm_HostBackend.hpp"

namespace KokkosRMSNorm::Impl {

// Whether ExecutionSpace runs away from the host, on a GPU.
template <class ExecutionSpace>
inline constexpr bool is_gpu_v =
    !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

// The one place where a backend's code is chosen: Backend<ExecutionSpace>
// gives the kernels their backend-specific loads, copies and sums and the
// launcher its shapes. Spaces on the host's cores take HostBackend, CUDA
// CudaBackend, any other GPU (HIP, SYCL) GpuBackend, with Kokkos's
// reductions.
template <class ExecutionSpace>
struct BackendOf {
  using type = std::conditional_t<is_gpu_v<ExecutionSpace>,
                                  GpuBackend<ExecutionSpace>, HostBackend>;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct BackendOf<Kokkos::Cuda> {
  using type = CudaBackend;
};
#endif

template <class ExecutionSpace>
using Backend = typename BackendOf<ExecutionSpace>::type;

// The most teams that may share a row on `space`.
template <class ExecutionSpace>
int max_teams_per_row(const ExecutionSpace& space) {
  return Backend<ExecutionSpace>::max_teams_per_row(space);
}

// The shape chosen for `rows` on ExecutionSpace.
template <class ExecutionSpace>
LaunchShape choose_launch_shape(const RowFacts& rows) {
  return Backend<ExecutionSpace>::choose_launch_shape(rows);
}

}  // namespace KokkosRMSNorm::Impl

#endif
