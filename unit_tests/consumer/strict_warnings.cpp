// SPDX-License-Identifier: BSD-3-Clause
// A parent project's strict warnings do not reach KokkosRMSNorm's headers,
// which add_subdirectory takes in as SYSTEM: this must compile with
// -Wshadow -Wconversion -Werror.
#include <KokkosRMSNorm.hpp>

void normalize(const Kokkos::View<float**>& x,
               const Kokkos::View<float*>& weight,
               const Kokkos::View<float**>& y) {
  KokkosRMSNorm::rms_norm(x, weight, y, 1e-6);
}
