#include "Test_AllSuites.hpp"

namespace KokkosRMSNorm::Test {
KOKKOSRMSNORM_INSTANTIATE_TESTS(Cuda, Kokkos::Cuda)
}  // namespace KokkosRMSNorm::Test
