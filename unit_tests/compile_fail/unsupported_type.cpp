// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: int is not a supported value type.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<int**> x, Kokkos::View<int*> weight,
          Kokkos::View<int**> y) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6);
}
