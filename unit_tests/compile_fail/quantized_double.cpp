// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: quantized outputs take float, half_t or bhalf_t x.
#include <cstdint>

#include <KokkosRMSNorm.hpp>

void call(Kokkos::View<double**> x, Kokkos::View<double*> weight,
          Kokkos::View<std::uint8_t**> y) {
  KokkosRMSNorm::rms_norm_quantized(x, weight, y, 1e-6,
                                    KokkosRMSNorm::fp8_e4m3(1.0f));
}
