// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: rstd of float x must hold float, not double.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**> x, Kokkos::View<float*> weight,
          Kokkos::View<float**> y, Kokkos::View<double*> rstd) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6, rstd);
}
