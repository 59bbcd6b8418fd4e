// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_SHARDED_HPP
#define KOKKOSRMSNORM_TEST_SHARDED_HPP

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The halves of a sharded norm on one process: the rows' columns cut into
// uneven shards (column subviews, one of them empty), each shard's sums
// added on the host as an all-reduce would, then each shard finished; the
// shards together must equal the reference of the whole rows.
template <class Case>
class ShardedTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Accumulation = Impl::accumulation_type_t<T>;
  using Sums = Kokkos::View<Accumulation*, Space>;
  static constexpr double eps = 1e-6;

  // Column ranges of n cut into `shards` uneven pieces, the first empty.
  static std::vector<std::pair<std::size_t, std::size_t>> shards_of(
      std::size_t n, int shards) {
    std::vector<std::pair<std::size_t, std::size_t>> out{{0, 0}};
    std::size_t begin = 0;
    for (int s = 0; s < shards; ++s) {
      const std::size_t end = s + 1 == shards ? n : begin + n / shards + s;
      out.emplace_back(begin, end);
      begin = end;
    }
    return out;
  }

  // The whole rows' sums: each shard's partial sums added on the host.
  template <class PartialSums>
  static Sums all_reduced(std::size_t rows, std::size_t n, int shards,
                          const PartialSums& partial_sums) {
    Sums total("total", rows);
    auto total_host = Kokkos::create_mirror_view(total);
    Kokkos::deep_copy(total_host, Accumulation(0));
    for (auto [begin, end] : shards_of(n, shards)) {
      Sums sums("sums", rows);
      Testing::poison(sums, std::numeric_limits<double>::quiet_NaN());
      partial_sums(Kokkos::make_pair(begin, end), sums);
      const auto host =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
      for (std::size_t i = 0; i < rows; ++i) {
        total_host(i) += host(i);
      }
    }
    Kokkos::deep_copy(total, total_host);
    return total;
  }
};

TYPED_TEST_SUITE_P(ShardedTest);

TYPED_TEST_P(ShardedTest, RMSNormWithRstdOverShards) {
  using Accumulation = typename TestFixture::Accumulation;
  constexpr double eps = TestFixture::eps;
  const std::size_t rows = 9;
  for (std::size_t n : {1, 256, 4097}) {
    for (int shards : {1, 3}) {
      typename TypeParam::matrix x("x", rows, n), y("y", rows, n);
      typename TypeParam::vector weight("weight", n);
      Kokkos::View<Accumulation*, typename TestFixture::Space> rstd("rstd",
                                                                    rows);
      Testing::fill_uniform(x, n);
      Testing::fill_uniform(weight, n + 1);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      typename TestFixture::Space space;
      const auto sums = TestFixture::all_reduced(
          rows, n, shards, [&](auto columns, const auto& partial) {
            rms_norm_partial_sums(
                space, Kokkos::subview(x, Kokkos::ALL, columns), partial);
          });
      for (auto [begin, end] : TestFixture::shards_of(n, shards)) {
        const auto columns = Kokkos::make_pair(begin, end);
        rms_norm_finish(space, Kokkos::subview(x, Kokkos::ALL, columns), sums,
                        n, Kokkos::subview(weight, columns),
                        Kokkos::subview(y, Kokkos::ALL, columns), eps, rstd);
      }
      space.fence();
      const std::string what =
          "N=" + std::to_string(n) + " shards=" + std::to_string(shards);
      expect_reference_result(x, weight, y, eps, what);
      expect_reference_rstd(x, rstd, eps, "rstd, " + what);
    }
  }
}

TYPED_TEST_P(ShardedTest, AddRMSNormInPlaceOneOrNoWeight) {
  // add's first half in place (sum = residual), then the finish in place
  // (y = sum) with one_plus and with no_weight.
  constexpr double eps = TestFixture::eps;
  const std::size_t rows = 5, n = 1000;
  for (bool one : {true, false}) {
    typename TypeParam::matrix x("x", rows, n), residual("residual", rows, n);
    typename TypeParam::vector weight("weight", n);
    Testing::fill_uniform(x, 7);
    Testing::fill_uniform(residual, 8);
    Testing::fill_uniform(weight, 9);
    const auto x_host = Testing::to_host_doubles(x);
    const auto residual_host = Testing::to_host_doubles(residual);
    typename TestFixture::Space space;
    const auto sums = TestFixture::all_reduced(
        rows, n, 3, [&](auto columns, const auto& partial) {
          const auto r = Kokkos::subview(residual, Kokkos::ALL, columns);
          add_rms_norm_partial_sums(
              space, Kokkos::subview(x, Kokkos::ALL, columns), r, r, partial);
        });
    // The sum as stored, before the finish normalizes it in place.
    const auto sum_host = Testing::to_host_doubles(residual);
    for (auto [begin, end] : TestFixture::shards_of(n, 3)) {
      const auto columns = Kokkos::make_pair(begin, end);
      const auto r = Kokkos::subview(residual, Kokkos::ALL, columns);
      if (one) {
        rms_norm_finish(space, r, sums, n,
                        one_plus(Kokkos::subview(weight, columns)), r, eps);
      } else {
        rms_norm_finish(space, r, sums, n, no_weight, r, eps);
      }
    }
    space.fence();
    Testing::HostMatrix expected_sum("expected sum", rows, n);
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        expected_sum(i, j) = x_host(i, j) + residual_host(i, j);
      }
    }
    expect_close<typename TestFixture::T>(sum_host, expected_sum, "sum");
    expect_close<typename TestFixture::T>(
        Testing::to_host_doubles(residual),
        Testing::reference_rms_norm(
            sum_host, one ? one_plus_factors(weight) : unit_factors(n), eps),
        one ? "one_plus" : "no_weight");
  }
}

TYPED_TEST_P(ShardedTest, BackwardOverShards) {
  // The backward halves over three uneven shards and an empty one, against
  // the double reference of the whole rows (tolerances as BackwardTest's:
  // T's rtol times the sum of the terms' magnitudes).
  using T = typename TestFixture::T;
  using Accumulation = typename TestFixture::Accumulation;
  const std::size_t rows = 6;
  for (std::size_t n : {5, 1000}) {
    typename TypeParam::matrix x("x", rows, n), dy("dy", rows, n),
        y("y", rows, n), dx("dx", rows, n);
    typename TypeParam::vector weight("weight", n), dweight("dweight", n);
    Kokkos::View<Accumulation*, typename TestFixture::Space> rstd("rstd", rows);
    Testing::fill_uniform(x, 11);
    Testing::fill_uniform(dy, 12);
    Testing::fill_uniform(weight, 13);
    Testing::poison(dx, std::numeric_limits<double>::quiet_NaN());
    Testing::poison(dweight, std::numeric_limits<double>::quiet_NaN());
    typename TestFixture::Space space;
    rms_norm(space, x, weight, y, TestFixture::eps, rstd);
    const auto sums = TestFixture::all_reduced(
        rows, n, 3, [&](auto columns, const auto& partial) {
          rms_norm_backward_partial_sums(
              space, Kokkos::subview(dy, Kokkos::ALL, columns),
              Kokkos::subview(x, Kokkos::ALL, columns),
              Kokkos::subview(weight, columns), partial);
        });
    for (auto [begin, end] : TestFixture::shards_of(n, 3)) {
      const auto columns = Kokkos::make_pair(begin, end);
      rms_norm_backward_finish(space, Kokkos::subview(dy, Kokkos::ALL, columns),
                               Kokkos::subview(x, Kokkos::ALL, columns),
                               Kokkos::subview(weight, columns), rstd, sums, n,
                               Kokkos::subview(dx, Kokkos::ALL, columns),
                               Kokkos::subview(dweight, columns));
    }
    space.fence();
    const auto expected = Testing::reference_rms_norm_backward(
        Testing::to_host_doubles(dy), Testing::to_host_doubles(x),
        Testing::to_host_doubles_1d(weight), Testing::to_host_doubles_1d(rstd));
    const auto dx_mismatches = Testing::allclose_to_scale(
        Testing::to_host_doubles(dx), expected.dx, expected.dx_scale,
        Tolerance<T>::rtol, Tolerance<T>::atol);
    EXPECT_FALSE(dx_mismatches)
        << dx_mismatches.count << " dx mismatches, N=" << n << ", first "
        << dx_mismatches.first;
    const auto dweight_mismatches = Testing::allclose_to_scale(
        Testing::as_row(Testing::to_host_doubles_1d(dweight)),
        Testing::as_row(expected.dweight),
        Testing::as_row(expected.dweight_scale), Tolerance<T>::rtol,
        Tolerance<T>::atol);
    EXPECT_FALSE(dweight_mismatches)
        << dweight_mismatches.count << " dweight mismatches, N=" << n
        << ", first " << dweight_mismatches.first;
  }
}

TYPED_TEST_P(ShardedTest, BadArguments) {
  // Rejected before anything is written: sums of the wrong length, n
  // shorter than the shard, a weight of the wrong length.
  const std::size_t rows = 4, n = 64;
  typename TypeParam::matrix x("x", rows, n), y("y", rows, n);
  typename TypeParam::vector weight("weight", n), short_weight("weight", n - 1);
  typename TestFixture::Sums sums("sums", rows), wrong("wrong", rows + 1);
  Testing::fill_uniform(x, 1);
  Testing::poison(y, 42.0);
  Testing::poison(wrong, 42.0);
  typename TestFixture::Space space;
  expect_invalid([&] { rms_norm_partial_sums(space, x, wrong); },
                 "KokkosRMSNorm::rms_norm_partial_sums", "sums extents (5)");
  expect_unwritten(wrong, 42.0, "sums");
  expect_invalid(
      [&] { rms_norm_finish(space, x, sums, n - 1, weight, y, 1e-6); },
      "KokkosRMSNorm::rms_norm_finish", "n, the whole rows' length, is 63");
  expect_invalid(
      [&] { rms_norm_finish(space, x, sums, n, short_weight, y, 1e-6); },
      "weight extents (63)");
  expect_unwritten(y, 42.0, "y");
}

REGISTER_TYPED_TEST_SUITE_P(ShardedTest, RMSNormWithRstdOverShards,
                            AddRMSNormInPlaceOneOrNoWeight, BackwardOverShards,
                            BadArguments);

}  // namespace KokkosRMSNorm::Test

#endif
