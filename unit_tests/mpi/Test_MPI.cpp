// SPDX-License-Identifier: BSD-3-Clause
// The sharded norm over MPI, run by ctest on 1 to 4 ranks: every rank makes
// the same seeded rows, takes its own uneven share of the columns (none on
// the last rank where there are several), and its results must equal the
// unsharded reference's columns within the tolerances of the unsharded
// tests.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_MPI.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "../Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<float**, Space>;
using Vector = Kokkos::View<float*, Space>;
constexpr double eps = 1e-6;

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// This rank's columns of n: shares of n / (ranks - 1), uneven where that
// does not divide, and none on the last rank where there are several.
std::pair<std::size_t, std::size_t> my_columns(std::size_t n) {
  const std::size_t holders = ranks() > 1 ? ranks() - 1 : 1;
  const std::size_t me = std::min<std::size_t>(rank(), holders);
  return {me * n / holders, std::min(n, (me + 1) * n / holders)};
}

// The whole rows, the same on every rank.
struct Rows {
  Matrix x, residual;
  Vector weight;
  Rows(std::size_t rows, std::size_t n)
      : x("x", rows, n), residual("residual", rows, n), weight("weight", n) {
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(residual, n + 1);
    Testing::fill_uniform(weight, n + 2);
  }
};

// Expects `shard` to equal columns [begin, begin + its extent) of
// `expected`.
template <class Shard>
void expect_columns(const Shard& shard, const Testing::HostMatrix& expected,
                    std::size_t begin, const std::string& what) {
  Testing::HostMatrix columns("columns", shard.extent(0), shard.extent(1));
  for (std::size_t i = 0; i < columns.extent(0); ++i)
    for (std::size_t j = 0; j < columns.extent(1); ++j)
      columns(i, j) = expected(i, begin + j);
  expect_close<float>(Testing::to_host_doubles(shard), columns,
                      what + " on rank " + std::to_string(rank()));
}

TEST(MPI, RMSNormWithRstdOverUnevenShards) {
  for (std::size_t n : {64, 4097}) {
    const std::size_t rows = 7;
    const Rows whole(rows, n);
    const auto [begin, end] = my_columns(n);
    const auto columns = Kokkos::make_pair(begin, end);
    Matrix y("y", rows, end - begin);
    Kokkos::View<float*, Space> rstd("rstd", rows);
    Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
    rms_norm(Space(), MPI_COMM_WORLD,
             Kokkos::subview(whole.x, Kokkos::ALL, columns),
             Kokkos::subview(whole.weight, columns), y, eps, rstd);
    Space().fence();
    const auto x_host = Testing::to_host_doubles(whole.x);
    expect_columns(y,
                   Testing::reference_rms_norm(
                       x_host, Testing::to_host_doubles_1d(whole.weight), eps),
                   begin, "N=" + std::to_string(n));
    expect_reference_rstd(whole.x, rstd, eps, "rstd");
  }
}

TEST(MPI, AddRMSNormInPlaceAndWeightOptions) {
  const std::size_t rows = 5, n = 1000;
  const auto [begin, end] = my_columns(n);
  const auto columns = Kokkos::make_pair(begin, end);
  for (int option = 0; option < 2; ++option) {
    const Rows whole(rows, n);
    const auto sum_expected = [&] {
      auto sum = Testing::to_host_doubles(whole.x);
      const auto residual = Testing::to_host_doubles(whole.residual);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < n; ++j)
          sum(i, j) += residual(i, j);
      return sum;
    }();
    const auto x = Kokkos::subview(whole.x, Kokkos::ALL, columns);
    const auto residual = Kokkos::subview(whole.residual, Kokkos::ALL, columns);
    const auto weight = Kokkos::subview(whole.weight, columns);
    // vLLM's in-place form: the residual becomes the sum, x the output.
    if (option == 0) {
      add_rms_norm(Space(), MPI_COMM_WORLD, x, residual, residual,
                   one_plus(weight), x, eps);
    } else {
      add_rms_norm(Space(), MPI_COMM_WORLD, x, residual, residual, no_weight, x,
                   eps);
    }
    Space().fence();
    expect_columns(residual, sum_expected, begin, "sum");
    // The reference normalizes the rounded sum, as the kernel does.
    const auto factors =
        option == 0 ? one_plus_factors(whole.weight) : unit_factors(n);
    Testing::HostMatrix rounded("rounded", rows, n);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < n; ++j)
        rounded(i, j) = double(float(sum_expected(i, j)));
    expect_columns(x, Testing::reference_rms_norm(rounded, factors, eps), begin,
                   option == 0 ? "one_plus" : "no_weight");
  }
}

TEST(MPI, BackwardOverUnevenShards) {
  // dx and the shard's columns of dweight against the double reference of
  // the whole rows (BackwardTest's tolerances).
  const std::size_t rows = 6, n = 4097;
  const Rows whole(rows, n);
  Matrix dy("dy", rows, n), y("y", rows, n);
  Testing::fill_uniform(dy, 77);
  Kokkos::View<float*, Space> rstd("rstd", rows);
  KokkosRMSNorm::rms_norm(Space(), whole.x, whole.weight, y, eps, rstd);
  const auto [begin, end] = my_columns(n);
  const auto columns = Kokkos::make_pair(begin, end);
  Matrix dx("dx", rows, end - begin);
  Vector dweight("dweight", end - begin);
  rms_norm_backward(Space(), MPI_COMM_WORLD,
                    Kokkos::subview(dy, Kokkos::ALL, columns),
                    Kokkos::subview(whole.x, Kokkos::ALL, columns),
                    Kokkos::subview(whole.weight, columns), rstd, dx, dweight);
  Space().fence();
  const auto expected = Testing::reference_rms_norm_backward(
      Testing::to_host_doubles(dy), Testing::to_host_doubles(whole.x),
      Testing::to_host_doubles_1d(whole.weight),
      Testing::to_host_doubles_1d(rstd));
  Testing::HostMatrix dx_expected("dx expected", rows, end - begin),
      dx_scale("dx scale", rows, end - begin);
  Testing::HostVector dweight_expected("dweight expected", end - begin),
      dweight_scale("dweight scale", end - begin);
  for (std::size_t j = 0; j < end - begin; ++j) {
    for (std::size_t i = 0; i < rows; ++i) {
      dx_expected(i, j) = expected.dx(i, begin + j);
      dx_scale(i, j) = expected.dx_scale(i, begin + j);
    }
    dweight_expected(j) = expected.dweight(begin + j);
    dweight_scale(j) = expected.dweight_scale(begin + j);
  }
  const auto dx_mismatches = Testing::allclose_to_scale(
      Testing::to_host_doubles(dx), dx_expected, dx_scale,
      Tolerance<float>::rtol, Tolerance<float>::atol);
  EXPECT_FALSE(dx_mismatches)
      << dx_mismatches.count << " dx mismatches on rank " << rank()
      << ", first " << dx_mismatches.first;
  const auto dweight_mismatches = Testing::allclose_to_scale(
      Testing::as_row(Testing::to_host_doubles_1d(dweight)),
      Testing::as_row(dweight_expected), Testing::as_row(dweight_scale),
      Tolerance<float>::rtol, Tolerance<float>::atol);
  EXPECT_FALSE(dweight_mismatches)
      << dweight_mismatches.count << " dweight mismatches on rank " << rank();
}

TEST(MPI, MismatchedShardsThrowOnEveryRank) {
  // Rank 0 has one row more than the others: with several ranks every rank
  // throws the same error, and nothing is written.
  if (ranks() == 1) {
    GTEST_SKIP() << "needs two ranks";
  }
  const std::size_t rows = rank() == 0 ? 4 : 3, n = 8;
  Matrix x("x", rows, n), y("y", rows, n);
  Vector weight("weight", n);
  Testing::fill_uniform(x, 1);
  Testing::poison(y, 42.0);
  expect_invalid([&] { rms_norm(Space(), MPI_COMM_WORLD, x, weight, y, eps); },
                 "KokkosRMSNorm::rms_norm (MPI)",
                 "the ranks' shards have from 3 to 4 rows");
  expect_unwritten(y, 42.0, "y");
}

TEST(MPI, OneRanksBadArgumentsThrowOnEveryRank) {
  // Rank 0's weight is too short: it throws its own error, the others say
  // that a rank rejected its arguments; none of them waits for ever.
  const std::size_t rows = 3, n = 8;
  Matrix x("x", rows, n), y("y", rows, n);
  Vector weight("weight", rank() == 0 ? n - 1 : n);
  Testing::poison(y, 42.0);
  expect_invalid([&] { rms_norm(Space(), MPI_COMM_WORLD, x, weight, y, eps); },
                 "KokkosRMSNorm::rms_norm (MPI)",
                 rank() == 0 ? "weight extents (7)"
                             : "1 other rank(s) rejected their arguments");
  expect_unwritten(y, 42.0, "y");
}

}  // namespace KokkosRMSNorm::Test

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (KokkosRMSNorm::Test::rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    result = RUN_ALL_TESTS();
  }
  // A failure on any rank fails every rank.
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return result;
}
