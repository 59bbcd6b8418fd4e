// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_KOKKOSKERNELS_HPP
#define KOKKOSRMSNORM_TEST_KOKKOSKERNELS_HPP

#include <limits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_KokkosKernels.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

template <class Case>
class KokkosKernelsTest : public ::testing::Test {};

TYPED_TEST_SUITE_P(KokkosKernelsTest);

// The fused kernel and the KokkosBlas composition agree. Both accumulate in
// the value type, in different orders, so they differ by the rounding of
// each against the exact result: twice the reference tolerance.
TYPED_TEST_P(KokkosKernelsTest, AgreesWithFusedKernel) {
  using T = typename TypeParam::value_type;
  using Space = typename TypeParam::execution_space;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Space>;
  for (auto [rows, n] :
       {std::pair<std::size_t, std::size_t>{64, 256}, {7, 4097}, {1000, 31}}) {
    Matrix x("x", rows, n), fused("fused", rows, n),
        composed("composed", rows, n);
    Kokkos::View<T*, Space> weight("weight", n);
    Testing::fill_uniform(x, 5);
    Testing::fill_uniform(weight, 6);
    Testing::poison(fused, std::numeric_limits<double>::quiet_NaN());
    Testing::poison(composed, std::numeric_limits<double>::quiet_NaN());
    rms_norm(Space(), x, weight, fused, 1e-6);
    Testing::KokkosKernelsRMSNorm<T, typename Space::device_type>
        kokkos_kernels(rows);
    kokkos_kernels(x, weight, composed, T(1e-6));
    Space().fence();
    const auto mismatches = Testing::allclose(
        Testing::to_host_doubles(composed), Testing::to_host_doubles(fused),
        2 * Tolerance<T>::rtol, Tolerance<T>::atol);
    EXPECT_FALSE(mismatches)
        << mismatches.count << " mismatches for rows=" << rows << " N=" << n
        << ", first " << mismatches.first;
  }
}

REGISTER_TYPED_TEST_SUITE_P(KokkosKernelsTest, AgreesWithFusedKernel);

template <class ExecutionSpace>
using KokkosKernelsCasesFor =
    ::testing::Types<Case<ExecutionSpace, float, Kokkos::LayoutRight>,
                     Case<ExecutionSpace, double, Kokkos::LayoutRight>>;

}  // namespace KokkosRMSNorm::Test

#endif
