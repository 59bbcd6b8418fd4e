// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: weight is rank 2.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**> x, Kokkos::View<float**> weight,
          Kokkos::View<float**> y) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6);
}
