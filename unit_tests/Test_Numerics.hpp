// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_NUMERICS_HPP
#define KOKKOSRMSNORM_TEST_NUMERICS_HPP

#include <limits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The documented behaviour on special values (README, docs/NUMERICS.md),
// which is what the same formula gives in double: a NaN makes its row NaN;
// an Inf makes rstd 0, so its row is 0 except NaN where the Inf is; a zero
// row gives zeros for eps > 0 and NaN for eps = 0. Other rows are unharmed.
template <class Case>
class NumericsTest : public ::testing::Test {
 protected:
  static constexpr std::size_t rows = 6, n = 37;

  // Normalizes seeded rows with `special` written into row 1 at the given
  // columns (or the whole row if `columns` is empty) and checks every
  // element against the double reference, NaN matching NaN.
  void expect_matches_reference(double special,
                                std::initializer_list<std::size_t> columns,
                                double eps) {
    typename Case::matrix x("x", rows, n), y("y", rows, n);
    typename Case::vector weight("weight", n);
    Testing::fill_uniform(x, 3);
    Testing::fill_uniform(weight, 4);
    const auto x_host =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    using T = typename Case::value_type;
    if (columns.size() == 0) {
      for (std::size_t j = 0; j < n; ++j)
        x_host(1, j) = T(special);
    }
    for (std::size_t j : columns)
      x_host(1, j) = T(special);
    Kokkos::deep_copy(x, x_host);
    Testing::poison(y, 12345);
    rms_norm(typename Case::execution_space(), x, weight, y, eps);
    typename Case::execution_space().fence();
    expect_reference_result(
        x, weight, y, eps,
        "special=" + std::to_string(special) + " eps=" + std::to_string(eps));
  }
};

TYPED_TEST_SUITE_P(NumericsTest);

TYPED_TEST_P(NumericsTest, NaNMakesItsRowNaN) {
  this->expect_matches_reference(std::numeric_limits<double>::quiet_NaN(), {5},
                                 1e-6);
}

TYPED_TEST_P(NumericsTest, InfMakesItsRowZeroAndNaN) {
  this->expect_matches_reference(std::numeric_limits<double>::infinity(), {0},
                                 1e-6);
  this->expect_matches_reference(-std::numeric_limits<double>::infinity(),
                                 {3, 36}, 1e-6);
}

TYPED_TEST_P(NumericsTest, ZeroRow) {
  this->expect_matches_reference(0, {}, 1e-6);  // zeros
  this->expect_matches_reference(0, {}, 0);     // NaN: 0 * (1 / sqrt(0))
}

REGISTER_TYPED_TEST_SUITE_P(NumericsTest, NaNMakesItsRowNaN,
                            InfMakesItsRowZeroAndNaN, ZeroRow);

}  // namespace KokkosRMSNorm::Test

#endif
