#include "Test_AllSuites.hpp"

namespace KokkosRMSNorm::Test {
KOKKOSRMSNORM_INSTANTIATE_TESTS(OpenMP, Kokkos::OpenMP)
}  // namespace KokkosRMSNorm::Test
