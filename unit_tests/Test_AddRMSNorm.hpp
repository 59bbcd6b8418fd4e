// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_ADDRMSNORM_HPP
#define KOKKOSRMSNORM_TEST_ADDRMSNORM_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

template <class Case>
class AddRMSNormTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Matrix = typename Case::matrix;
  static constexpr double eps = 1e-6;

  // Expects sum to hold x + residual (taken before the call) rounded to T,
  // within T's tolerance, and y the RMSNorm of sum as stored: the sum is
  // rounded to T before it is normalized, as the documentation says.
  template <class SumView, class YView>
  static void expect_results(const Testing::HostMatrix& x_before,
                             const Testing::HostMatrix& residual_before,
                             const SumView& sum, const YView& y,
                             const typename Case::vector& weight,
                             const std::string& what) {
    Testing::HostMatrix expected_sum("expected sum", x_before.extent(0),
                                     x_before.extent(1));
    for (std::size_t i = 0; i < x_before.extent(0); ++i)
      for (std::size_t j = 0; j < x_before.extent(1); ++j)
        expected_sum(i, j) = x_before(i, j) + residual_before(i, j);
    expect_close<T>(Testing::to_host_doubles(sum), expected_sum,
                    "sum, " + what);
    expect_reference_result(sum, weight, y, eps, "y, " + what);
  }

  // Fills x, the residual and the weight from `seed` (seed, seed + 1,
  // seed + 2) and returns x and the residual as filled, for expect_results.
  template <class XView, class ResidualView>
  static std::pair<Testing::HostMatrix, Testing::HostMatrix> filled(
      const XView& x, const ResidualView& residual,
      const typename Case::vector& weight, std::uint64_t seed) {
    Testing::fill_uniform(x, seed);
    Testing::fill_uniform(residual, seed + 1);
    Testing::fill_uniform(weight, seed + 2);
    return {Testing::to_host_doubles(x), Testing::to_host_doubles(residual)};
  }
};

TYPED_TEST_SUITE_P(AddRMSNormTest);

TYPED_TEST_P(AddRMSNormTest, OutOfPlace) {
  using Matrix = typename TestFixture::Matrix;
  for (std::size_t n : {1, 256, 4097, 70000}) {
    Matrix x("x", 7, n), residual("residual", 7, n), sum("sum", 7, n),
        y("y", 7, n);
    typename TypeParam::vector weight("weight", n);
    const auto [x_before, residual_before] =
        TestFixture::filled(x, residual, weight, n);
    Testing::poison(sum, std::numeric_limits<double>::quiet_NaN());
    Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
    add_rms_norm(typename TestFixture::Space(), x, residual, sum, weight, y,
                 TestFixture::eps);
    typename TestFixture::Space().fence();
    TestFixture::expect_results(x_before, residual_before, sum, y, weight,
                                "N=" + std::to_string(n));
  }
}

TYPED_TEST_P(AddRMSNormTest, InPlace) {
  // vLLM's fused_add_rms_norm: the residual becomes the sum and x the
  // normalized output. A few rows, as a decode step's, then calls of more
  // than 4 MB of Packs, which a GPU launches in the shapes of long calls,
  // where rows of 513-2048 floats with a residual take a shape of their own
  // (GpuBackend).
  using Matrix = typename TestFixture::Matrix;
  for (const auto& [rows, n] : {std::pair<std::size_t, std::size_t>{5, 256},
                                {5, 4097},
                                {5, 70000},
                                {2100, 1000},
                                {1027, 2048}}) {
    Matrix x("x", rows, n), residual("residual", rows, n);
    typename TypeParam::vector weight("weight", n);
    const auto [x_before, residual_before] =
        TestFixture::filled(x, residual, weight, n);
    add_rms_norm(typename TestFixture::Space(), x, residual, residual, weight,
                 x, TestFixture::eps);
    typename TestFixture::Space().fence();
    TestFixture::expect_results(
        x_before, residual_before, residual, x, weight,
        "in place, M=" + std::to_string(rows) + " N=" + std::to_string(n));
  }
}

TYPED_TEST_P(AddRMSNormTest, WithRstdAndOnePlus) {
  using Matrix = typename TestFixture::Matrix;
  using Accumulation = Impl::accumulation_type_t<typename TestFixture::T>;
  const std::size_t rows = 64, n = 1024;
  Matrix x("x", rows, n), residual("residual", rows, n), sum("sum", rows, n),
      y("y", rows, n);
  typename TypeParam::vector weight("weight", n);
  Kokkos::View<Accumulation*, typename TestFixture::Space> rstd("rstd", rows);
  Testing::fill_uniform(x, 51);
  Testing::fill_uniform(residual, 52);
  Testing::fill_uniform(weight, 53);
  Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
  Testing::poison(rstd, std::numeric_limits<double>::quiet_NaN());
  add_rms_norm(typename TestFixture::Space(), x, residual, sum,
               one_plus(weight), y, TestFixture::eps, rstd);
  typename TestFixture::Space().fence();
  Testing::HostVector factors = one_plus_factors(weight);
  expect_reference_result(sum, factors, y, TestFixture::eps, "one_plus");
  expect_reference_rstd(sum, rstd, TestFixture::eps, "rstd");
}

TYPED_TEST_P(AddRMSNormTest, InPlaceSplitRows) {
  // In place with rows split across 2, 3 or 5 teams (RowSplit), in one
  // sweep or several: a team that sums a chunk of another team's reads x and
  // the residual that the chunk's own team overwrites, which must wait for
  // it. On Serial every chunk after a row's first is summed that way.
  using Space = typename TestFixture::Space;
  using Matrix = typename TestFixture::Matrix;
  const int lanes = Impl::is_gpu_v<Space> ? 64 : 1;
  const std::size_t rows = 6;
  Workspace<Space> workspace;
  for (int teams : {2, 3, 5}) {
    for (int n : {lanes * 4 * teams - 1, 3 * lanes * 4 * teams + 1}) {
      Matrix x("x", rows, n), residual("residual", rows, n);
      typename TypeParam::vector weight("weight", n);
      const auto [x_before, residual_before] =
          TestFixture::filled(x, residual, weight, n);
      using Split =
          Impl::RowSplit<Impl::accumulation_type_t<typename TestFixture::T>>;
      const auto math = Impl::make_row_math<1>(x, residual, residual, weight, x,
                                               Impl::None(), TestFixture::eps);
      Impl::launch_rms_norm(
          "KokkosRMSNorm::Test::InPlaceSplitRows", Space(), math,
          Impl::LaunchShape::split_row<Impl::Backend<Space>>(
              Impl::RowFacts::of(math), teams, lanes, 4),
          workspace.reserve(Space(), Split::bytes(rows, teams)).data());
      Space().fence();
      TestFixture::expect_results(
          x_before, residual_before, residual, x, weight,
          "teams_per_row=" + std::to_string(teams) + " N=" + std::to_string(n));
    }
  }
}

TYPED_TEST_P(AddRMSNormTest, InPlaceStaticRowLength) {
  // In place on rows whose length the Views' type fixes (View<T*[N]>), as
  // a decode step calls it: kernels specialised on N (see RMSNormTest's
  // StaticRowLength).
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  using Rows = Kokkos::View<T**, Kokkos::LayoutRight, Space>;
  const auto check = [](auto row_length) {
    constexpr std::size_t n = decltype(row_length)::value;
    using Static = Kokkos::View<T* [n], Kokkos::LayoutRight, Space,
                                Kokkos::MemoryUnmanaged>;
    for (std::size_t rows : {1, 300}) {
      Rows x("x", rows, n), residual("residual", rows, n);
      typename TypeParam::vector weight("weight", n);
      const auto [x_before, residual_before] =
          TestFixture::filled(x, residual, weight, n);
      const Static x_rows(x.data(), rows), residual_rows(residual.data(), rows);
      add_rms_norm(Space(), x_rows, residual_rows, residual_rows, weight,
                   x_rows, TestFixture::eps);
      Space().fence();
      TestFixture::expect_results(
          x_before, residual_before, residual, x, weight,
          "static N=" + std::to_string(n) + " rows=" + std::to_string(rows));
    }
  };
  check(std::integral_constant<std::size_t, 2048>());
  check(std::integral_constant<std::size_t, 4096>());
}

REGISTER_TYPED_TEST_SUITE_P(AddRMSNormTest, OutOfPlace, InPlace,
                            WithRstdAndOnePlus, InPlaceSplitRows,
                            InPlaceStaticRowLength);

}  // namespace KokkosRMSNorm::Test

#endif
