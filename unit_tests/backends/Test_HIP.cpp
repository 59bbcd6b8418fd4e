#include "Test_AllSuites.hpp"

namespace KokkosRMSNorm::Test {
KOKKOSRMSNORM_INSTANTIATE_TESTS(HIP, Kokkos::HIP)
}  // namespace KokkosRMSNorm::Test
