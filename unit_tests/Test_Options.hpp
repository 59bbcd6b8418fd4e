// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_OPTIONS_HPP
#define KOKKOSRMSNORM_TEST_OPTIONS_HPP

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The weight options (no_weight, one_plus) and the rstd output.
template <class Case>
class OptionsTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Accumulation = Impl::accumulation_type_t<T>;
  static constexpr double eps = 1e-6;
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

  // Row lengths that take each kernel path: warp rows, team rows, two
  // sweeps, and not a whole number of Packs.
  static constexpr std::array<std::size_t, 4> row_lengths{1, 256, 4097, 70000};
};

TYPED_TEST_SUITE_P(OptionsTest);

TYPED_TEST_P(OptionsTest, NoWeight) {
  for (std::size_t n : TestFixture::row_lengths) {
    typename TypeParam::matrix x("x", 7, n), y("y", 7, n);
    Testing::fill_uniform(x, n);
    Testing::poison(y, TestFixture::nan);
    rms_norm(typename TestFixture::Space(), x, no_weight, y, TestFixture::eps);
    typename TestFixture::Space().fence();
    expect_reference_result(x, unit_factors(n), y, TestFixture::eps,
                            "no weight, N=" + std::to_string(n));
  }
}

TYPED_TEST_P(OptionsTest, OnePlusWeight) {
  for (std::size_t n : TestFixture::row_lengths) {
    typename TypeParam::matrix x("x", 7, n), y("y", 7, n);
    typename TypeParam::vector weight("weight", n);
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(weight, n + 1);
    Testing::poison(y, TestFixture::nan);
    rms_norm(typename TestFixture::Space(), x, one_plus(weight), y,
             TestFixture::eps);
    typename TestFixture::Space().fence();
    Testing::HostVector factors = one_plus_factors(weight);
    expect_reference_result(x, factors, y, TestFixture::eps,
                            "one_plus, N=" + std::to_string(n));
  }
}

TYPED_TEST_P(OptionsTest, Rstd) {
  // rstd is computed in the accumulation type and stored unrounded, so it
  // has that type's tolerance; y is unchanged by asking for it.
  using Accumulation = typename TestFixture::Accumulation;
  for (std::size_t n : TestFixture::row_lengths) {
    typename TypeParam::matrix x("x", 9, n), y("y", 9, n);
    typename TypeParam::vector weight("weight", n);
    Kokkos::View<Accumulation*, typename TestFixture::Space> rstd("rstd", 9);
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(weight, n + 1);
    Testing::poison(y, TestFixture::nan);
    Testing::poison(rstd, TestFixture::nan);
    rms_norm(typename TestFixture::Space(), x, weight, y, TestFixture::eps,
             rstd);
    typename TestFixture::Space().fence();
    const std::string what = "N=" + std::to_string(n);
    expect_reference_result(x, weight, y, TestFixture::eps, what);
    expect_reference_rstd(x, rstd, TestFixture::eps, "rstd, " + what);
  }
}

TYPED_TEST_P(OptionsTest, RstdOfRank3) {
  // A rank-3 x has a rank-2 rstd of its (batch, sequence) extents, in x's
  // layout: compared through rank-2 and rank-1 Views of the same memory.
  using T = typename TestFixture::T;
  using Layout = typename TypeParam::layout;
  using Space = typename TestFixture::Space;
  using Accumulation = typename TestFixture::Accumulation;
  const std::size_t batch = 3, sequence = 5, n = 1000;
  Kokkos::View<T***, Layout, Space> x("x", batch, sequence, n),
      y("y", batch, sequence, n);
  Kokkos::View<Accumulation**, Layout, Space> rstd("rstd", batch, sequence);
  typename TypeParam::vector weight("weight", n);
  const Kokkos::View<T**, Layout, Space, Kokkos::MemoryUnmanaged> x_rows(
      x.data(), batch * sequence, n);
  const Kokkos::View<Accumulation*, Space, Kokkos::MemoryUnmanaged> rstd_rows(
      rstd.data(), batch * sequence);
  Testing::fill_uniform(x_rows, 41);
  Testing::fill_uniform(weight, 42);
  Testing::poison(rstd_rows, TestFixture::nan);
  rms_norm(Space(), x, weight, y, TestFixture::eps, rstd);
  Space().fence();
  expect_reference_rstd(x_rows, rstd_rows, TestFixture::eps, "rank-3 rstd");
}

REGISTER_TYPED_TEST_SUITE_P(OptionsTest, NoWeight, OnePlusWeight, Rstd,
                            RstdOfRank3);

}  // namespace KokkosRMSNorm::Test

#endif
