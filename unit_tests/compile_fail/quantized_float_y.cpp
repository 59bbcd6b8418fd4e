// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: a quantized y holds one-byte codes, not floats.
#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<float**> x, Kokkos::View<float*> weight,
          Kokkos::View<float**> y) {
  KokkosRMSNorm::rms_norm_quantized(x, weight, y, 1e-6,
                                    KokkosRMSNorm::int8(1.0f));
}
