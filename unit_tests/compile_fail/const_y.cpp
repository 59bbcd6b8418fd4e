// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: y is const.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**> x, Kokkos::View<float*> weight,
          Kokkos::View<const float**> y) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6);
}
