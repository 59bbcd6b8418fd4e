// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_CASES_HPP
#define KOKKOSRMSNORM_TEST_CASES_HPP

#include <cfloat>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

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
// for the largest N tested, 70,000, about 265 epsilon. rtol allows 6x that
// for float; for double it covers even the worst-case bound N * epsilon.
// Both are far below what a wrong index, a missing eps or a wrong mean
// produce (eps = 1e-2 on unit data moves y by 1.5%). atol is the smallest
// normal number, so a result that underflows to a subnormal is not counted
// as wrong. docs/NUMERICS.md has the whole argument. tiny and huge are the
// magnitudes tests use at the edges of T's range: representable, and with
// squares that neither underflow nor overflow the accumulation type.
template <class T>
struct Tolerance;
template <>
struct Tolerance<float> {
  static constexpr double rtol = 1e-4;
  static constexpr double atol = FLT_MIN;
  static constexpr double tiny = 1e-15, huge = 1e15;
};
template <>
struct Tolerance<double> {
  static constexpr double rtol = 1e-11;
  static constexpr double atol = DBL_MIN;
  static constexpr double tiny = 1e-150, huge = 1e150;
};

// The weight factors of one_plus(weight), 1 + weight(j), in double.
template <class WeightView>
Testing::HostVector one_plus_factors(const WeightView& weight) {
  Testing::HostVector factors = Testing::to_host_doubles_1d(weight);
  for (std::size_t j = 0; j < factors.extent(0); ++j) {
    factors(j) += 1;
  }
  return factors;
}

// The weight factors of no_weight: n ones.
inline Testing::HostVector unit_factors(std::size_t n) {
  Testing::HostVector ones("ones", n);
  Kokkos::deep_copy(ones, 1.0);
  return ones;
}

// Expects `actual` to match `expected` within the tolerance of T.
template <class T>
void expect_close(const Testing::HostMatrix& actual,
                  const Testing::HostMatrix& expected,
                  const std::string& what) {
  const auto mismatches = Testing::allclose(
      actual, expected, Tolerance<T>::rtol, Tolerance<T>::atol);
  EXPECT_FALSE(mismatches) << mismatches.count << " mismatches for " << what
                           << ", first " << mismatches.first;
}

// Expects y to equal the double host reference of RMSNorm of x with the
// weight factors `factors`, elementwise, within the tolerance of y's type;
// `what` names the case.
template <class XView, class YView>
void expect_reference_result(const XView& x, const Testing::HostVector& factors,
                             const YView& y, double eps,
                             const std::string& what) {
  expect_close<typename YView::non_const_value_type>(
      Testing::to_host_doubles(y),
      Testing::reference_rms_norm(Testing::to_host_doubles(x), factors, eps),
      what);
}

// The same for a weight View.
template <class XView, class WeightView, class YView>
void expect_reference_result(const XView& x, const WeightView& weight,
                             const YView& y, double eps,
                             const std::string& what) {
  expect_reference_result(x, Testing::to_host_doubles_1d(weight), y, eps, what);
}

// Expects rstd (a View of one value per row of x, rank 1) to equal the
// double host reference of x's rstd within the tolerance of rstd's type:
// it is computed in the accumulation type and stored unrounded.
template <class XView, class RstdView>
void expect_reference_rstd(const XView& x, const RstdView& rstd, double eps,
                           const std::string& what) {
  expect_close<typename RstdView::non_const_value_type>(
      Testing::as_row(Testing::to_host_doubles_1d(rstd)),
      Testing::as_row(
          Testing::reference_rstd(Testing::to_host_doubles(x), eps)),
      what);
}

// Expects call() to throw std::invalid_argument whose message holds every
// one of `words`.
template <class Call, class... Words>
void expect_invalid(const Call& call, const Words&... words) {
  try {
    call();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    for (const std::string& word : {std::string(words)...}) {
      EXPECT_NE(message.find(word), std::string::npos)
          << "'" << word << "' missing from: " << message;
    }
  }
}

// Expects every element of `view` (any rank, any space) to hold `sentinel`:
// a rejected call wrote nothing to it.
template <class View>
void expect_unwritten(const View& view, double sentinel, const char* name) {
  const auto host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  for (std::size_t i = 0; i < host.size(); ++i) {
    ASSERT_EQ(double(host.data()[i]), sentinel) << name << " written at " << i;
  }
}

}  // namespace KokkosRMSNorm::Test

#endif
