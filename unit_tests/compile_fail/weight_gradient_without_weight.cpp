// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: a weightless RMSNorm has no weight gradient.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**> dy, Kokkos::View<float**> x,
          Kokkos::View<float*> rstd, Kokkos::View<float**> dx,
          Kokkos::View<float*> dweight,
          KokkosRMSNorm::Workspace<Kokkos::DefaultExecutionSpace>& workspace) {
  KokkosRMSNorm::rms_norm_backward(dy, x, KokkosRMSNorm::no_weight, rstd, dx,
                                   dweight, workspace);
}
