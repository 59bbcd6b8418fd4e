// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_INVALIDARGUMENTS_HPP
#define KOKKOSRMSNORM_TEST_INVALIDARGUMENTS_HPP

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

template <class Case>
class InvalidArgumentsTest : public ::testing::Test {
 protected:
  static constexpr double sentinel = 42;

  // Expects rms_norm(x, weight, y) to throw std::invalid_argument whose
  // message holds every one of `words`, and y_allocation, the whole
  // allocation y views, to keep the sentinel it is given beforehand.
  template <class XView, class YView, class YAllocation, class... Words>
  void expect_rejected(const XView& x, const YView& y,
                       const YAllocation& y_allocation,
                       const typename Case::vector& weight, double eps,
                       const Words&... words) {
    Testing::poison(y_allocation, sentinel);
    expect_invalid(
        [&] { rms_norm(typename Case::execution_space(), x, weight, y, eps); },
        words...);
    expect_unwritten(y_allocation, sentinel, "y");
  }

  // The same for rank-2 Views of the given extents, x and weight seeded.
  template <class... Words>
  void expect_rejected(std::size_t x_rows, std::size_t x_n, std::size_t y_rows,
                       std::size_t y_n, std::size_t weight_n, double eps,
                       const Words&... words) {
    typename Case::matrix x("x", x_rows, x_n), y("y", y_rows, y_n);
    typename Case::vector weight("weight", weight_n);
    Testing::fill_uniform(x, 1);
    Testing::fill_uniform(weight, 2);
    expect_rejected(x, y, y, weight, eps, words...);
  }
};

TYPED_TEST_SUITE_P(InvalidArgumentsTest);

TYPED_TEST_P(InvalidArgumentsTest, YExtentsDiffer) {
  this->expect_rejected(4, 8, 4, 7, 8, 1e-6, "y extents (4, 7)",
                        "x extents (4, 8)");
  this->expect_rejected(4, 8, 5, 8, 8, 1e-6, "y extents (5, 8)",
                        "x extents (4, 8)");
}

TYPED_TEST_P(InvalidArgumentsTest, WeightLength) {
  this->expect_rejected(4, 8, 4, 8, 7, 1e-6, "weight extents (7)",
                        "x extents (4, 8)");
}

TYPED_TEST_P(InvalidArgumentsTest, Eps) {
  this->expect_rejected(4, 8, 4, 8, 8, -1e-6, "eps", "-1e-06",
                        "x extents (4, 8)");
  this->expect_rejected(4, 8, 4, 8, 8, std::numeric_limits<double>::quiet_NaN(),
                        "eps", "nan", "x extents (4, 8)");
  this->expect_rejected(4, 8, 4, 8, 8, std::numeric_limits<double>::infinity(),
                        "eps must be a finite", "inf", "x extents (4, 8)");
  // 1e-50 is 0 in float, the accumulation type of every type but double,
  // where it is a valid eps.
  using Accumulation =
      Impl::accumulation_type_t<typename TypeParam::value_type>;
  if constexpr (std::is_same_v<Accumulation, float>) {
    this->expect_rejected(4, 8, 4, 8, 8, 1e-50,
                          "eps is positive but 0 in the accumulation type",
                          "1e-50", "x extents (4, 8)");
  } else {
    typename TypeParam::matrix x("x", 4, 8), y("y", 4, 8);
    typename TypeParam::vector weight("weight", 8);
    EXPECT_NO_THROW(rms_norm(x, weight, y, 1e-50));
  }
}

TYPED_TEST_P(InvalidArgumentsTest, EmptyViewsAreANoOp) {
  for (auto [rows, n] : {std::pair<std::size_t, std::size_t>{0, 8}, {3, 0}}) {
    typename TypeParam::matrix x("x", rows, n), y("y", rows, n);
    typename TypeParam::vector weight("weight", n);
    EXPECT_NO_THROW(rms_norm(x, weight, y, 1e-6));
  }
}

TYPED_TEST_P(InvalidArgumentsTest, Rank3RstdInAnotherRowOrder) {
  // x and y rank 3 in the case's layout, rstd in the other: its (batch,
  // sequence) values lie in the other order, so value i of it is not row i
  // of x (and would be written past its end). Each call is rejected, naming
  // rstd, and writes nothing. (Row arguments of another order are rows of
  // heads: Test_HeadRows.hpp.)
  using T = typename TypeParam::value_type;
  using Space = typename TypeParam::execution_space;
  using Layout = typename TypeParam::layout;
  using Other = std::conditional_t<std::is_same_v<Layout, Kokkos::LayoutRight>,
                                   Kokkos::LayoutLeft, Kokkos::LayoutRight>;
  using Accumulation = Impl::accumulation_type_t<T>;
  const double sentinel = TestFixture::sentinel;
  Kokkos::View<T***, Layout, Space> x("x", 3, 5, 8), y("y", 3, 5, 8),
      good("good", 3, 5, 8);
  Kokkos::View<Accumulation**, Other, Space> other_rstd("other rstd", 3, 5);
  typename TypeParam::vector weight("weight", 8), dweight("dweight", 8);
  Testing::fill_uniform(weight, 1);
  Kokkos::deep_copy(x, T(1));
  Kokkos::deep_copy(good, T(1));
  const Space space;
  Workspace<Space> workspace;
  Testing::poison(y, sentinel);
  Testing::poison(other_rstd, sentinel);
  Testing::poison(dweight, sentinel);
  expect_invalid([&] { rms_norm(space, x, weight, y, 1e-6, other_rstd); },
                 "rms_norm", "rstd extents (3, 5)", "row order");
  expect_invalid(
      [&] {
        rms_norm_backward(space, good, x, weight, other_rstd, y, dweight,
                          workspace);
      },
      "rms_norm_backward", "rstd extents (3, 5)", "row order");
  expect_unwritten(y, sentinel, "y");
  expect_unwritten(other_rstd, sentinel, "rstd");
  expect_unwritten(dweight, sentinel, "dweight");
}

TYPED_TEST_P(InvalidArgumentsTest, OtherArguments) {
  // The residual, sum, rstd, dy, dx and dweight arguments of each entry
  // point are checked the same way, and a rejected call writes nothing.
  using Space = typename TypeParam::execution_space;
  using Accumulation =
      Impl::accumulation_type_t<typename TypeParam::value_type>;
  using Matrix = typename TypeParam::matrix;
  using Vector = typename TypeParam::vector;
  using Rstd = Kokkos::View<Accumulation*, Space>;
  const double sentinel = TestFixture::sentinel;
  Matrix x("x", 4, 8), good("good", 4, 8), bad("bad", 4, 7), out("out", 4, 8);
  Vector weight("weight", 8), bad_weight("bad weight", 7), dweight("dw", 8);
  Rstd rstd("rstd", 4), bad_rstd("bad rstd", 5);
  Testing::fill_uniform(x, 1);
  Testing::fill_uniform(good, 2);
  Testing::fill_uniform(weight, 3);
  Kokkos::deep_copy(rstd, 1.0);
  Testing::poison(out, sentinel);
  Testing::poison(dweight, sentinel);
  const Space space;
  Workspace<Space> workspace;
  expect_invalid([&] { add_rms_norm(space, x, bad, good, weight, out, 1e-6); },
                 "add_rms_norm", "residual extents (4, 7)", "x extents (4, 8)");
  expect_invalid([&] { add_rms_norm(space, x, good, bad, weight, out, 1e-6); },
                 "add_rms_norm", "sum extents (4, 7)", "x extents (4, 8)");
  expect_invalid([&] { rms_norm(space, x, weight, out, 1e-6, bad_rstd); },
                 "rms_norm", "rstd extents (5)", "x extents (4, 8)");
  expect_invalid([&] { rms_norm(space, x, one_plus(bad_weight), out, 1e-6); },
                 "weight extents (7)", "x extents (4, 8)");
  expect_invalid(
      [&] {
        rms_norm_backward(space, bad, x, weight, rstd, out, dweight, workspace);
      },
      "rms_norm_backward", "dy extents (4, 7)", "x extents (4, 8)");
  expect_invalid(
      [&] {
        rms_norm_backward(space, good, x, weight, rstd, bad, dweight,
                          workspace);
      },
      "rms_norm_backward", "dx extents (4, 7)", "x extents (4, 8)");
  expect_invalid(
      [&] {
        rms_norm_backward(space, good, x, weight, bad_rstd, out, dweight,
                          workspace);
      },
      "rms_norm_backward", "rstd extents (5)", "x extents (4, 8)");
  expect_invalid(
      [&] {
        rms_norm_backward(space, good, x, weight, rstd, out, bad_weight,
                          workspace);
      },
      "rms_norm_backward", "dweight extents (7)", "x extents (4, 8)");
  expect_unwritten(out, sentinel, "out");
  expect_unwritten(dweight, sentinel, "dweight");
}

REGISTER_TYPED_TEST_SUITE_P(InvalidArgumentsTest, YExtentsDiffer, WeightLength,
                            Eps, EmptyViewsAreANoOp, Rank3RstdInAnotherRowOrder,
                            OtherArguments);

}  // namespace KokkosRMSNorm::Test

#endif
