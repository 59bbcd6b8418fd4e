// SPDX-License-Identifier: BSD-3-Clause
#include "Test_AllSuites.hpp"

namespace KokkosRMSNorm::Test {
KOKKOSRMSNORM_INSTANTIATE_TESTS(HIP, Kokkos::HIP)
}  // namespace KokkosRMSNorm::Test
