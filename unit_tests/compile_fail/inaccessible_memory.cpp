// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the host cannot run on device-only memory.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**, Kokkos::DefaultExecutionSpace> x,
          Kokkos::View<float*, Kokkos::DefaultExecutionSpace> weight,
          Kokkos::View<float**, Kokkos::DefaultExecutionSpace> y) {
  KokkosRMSNorm::rms_norm(Kokkos::DefaultHostExecutionSpace(), x, weight, y,
                          1e-6);
}
