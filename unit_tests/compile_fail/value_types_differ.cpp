// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: x holds double, y float.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<double**> x, Kokkos::View<float*> weight,
          Kokkos::View<float**> y) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6);
}
