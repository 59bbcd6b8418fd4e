#ifndef KOKKOSRMSNORM_TEST_CASES_HPP
#define KOKKOSRMSNORM_TEST_CASES_HPP

#include <cfloat>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Test {

// One combination the typed suites run over.
template <class ExecutionSpace, class T, class Layout>
struct Case {
  using execution_space = ExecutionSpace;
  using value_type = T;
  using layout = Layout;
  using matrix = Kokkos::View<T**, Layout, ExecutionSpace>;
  using vector = Kokkos::View<T*, ExecutionSpace>;
};

template <class ExecutionSpace>
using CasesFor =
    ::testing::Types<Case<ExecutionSpace, float, Kokkos::LayoutRight>,
                     Case<ExecutionSpace, float, Kokkos::LayoutLeft>,
                     Case<ExecutionSpace, double, Kokkos::LayoutRight>,
                     Case<ExecutionSpace, double, Kokkos::LayoutLeft>>;

// Each y(i, j) is a product x(i, j) * rstd(i) * w(j), so its relative error
// is that of rstd plus a few roundings: no cancellation can inflate it. The
// error of rstd is half that of the sum of squares, whose rounding errors
// grow like sqrt(N) * epsilon for N terms of one sign (unbiased rounding):
// for N <= 16384 about 128 epsilon. rtol allows ~8x (float) and ~800x
// (double) over that, still far below what a wrong index, a missing eps or a
// wrong mean would produce (eps = 1e-2 on unit data moves y by 1.5%). atol
// is the smallest normal number, so a result that underflows to a subnormal
// is not counted as wrong.
template <class T>
struct Tolerance;
template <>
struct Tolerance<float> {
  static constexpr double rtol = 1e-4;
  static constexpr double atol = FLT_MIN;
};
template <>
struct Tolerance<double> {
  static constexpr double rtol = 1e-11;
  static constexpr double atol = DBL_MIN;
};

}  // namespace KokkosRMSNorm::Test

#endif
