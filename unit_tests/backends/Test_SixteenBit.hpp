// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_SIXTEENBIT_HPP
#define KOKKOSRMSNORM_TEST_SIXTEENBIT_HPP

// The 16-bit cases of the suites that compute, on any backend of a Kokkos
// with CUDA: only there are half_t and bhalf_t 16 bits wide on the host too
// (on host-only Kokkos builds they are plain float).
#include <cfloat>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// y is rounded to T once, so its error is at most half an ulp
// of T (2^-9 for bf16's 8 significant bits, 2^-12 for fp16's 11) on top of
// the float computation's; rtol is twice that half ulp. fp16 results below
// its smallest normal (6.1e-5) are subnormal, spaced 2^-24 apart: atol.
template <>
struct Tolerance<Kokkos::Experimental::half_t> {
  static constexpr double rtol = 5e-4;
  static constexpr double atol = 6e-8;
  static constexpr double tiny = 1e-2, huge = 1e4;
};
template <>
struct Tolerance<Kokkos::Experimental::bhalf_t> {
  static constexpr double rtol = 4e-3;
  static constexpr double atol = FLT_MIN;
  static constexpr double tiny = 1e-15, huge = 1e15;
};

template <class ExecutionSpace>
using SixteenBitCasesFor = ::testing::Types<
    Case<ExecutionSpace, Kokkos::Experimental::half_t, Kokkos::LayoutRight>,
    Case<ExecutionSpace, Kokkos::Experimental::bhalf_t, Kokkos::LayoutRight>,
    Case<ExecutionSpace, Kokkos::Experimental::bhalf_t, Kokkos::LayoutLeft>>;

}  // namespace KokkosRMSNorm::Test

#endif
