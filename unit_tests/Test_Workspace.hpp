// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_WORKSPACE_HPP
#define KOKKOSRMSNORM_TEST_WORKSPACE_HPP

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The forward calls given a Workspace, which split long rows across teams
// where the backend allows it (CUDA) and are plain calls elsewhere.
template <class Case>
class WorkspaceTest : public ::testing::Test {
 protected:
  using Space = typename Case::execution_space;
  using Accumulation = Impl::accumulation_type_t<typename Case::value_type>;
  static constexpr double eps = 1e-6;
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

  // (rows, N): one team a row; rows split across a few teams and many, in
  // whole Packs and not, with a short last chunk; where rows split, also more
  // Packs of floats than the most teams a row may have on an H200 hold
  // (132 x 2048), so chunks are swept twice. That row is too long for the
  // tolerance of a host's sequential float sum (see Tolerance), which a
  // split row's sum, over chunks of lanes, stays far within. Rows grow
  // after the longest, so the workspace grows between calls.
  static std::vector<std::pair<std::size_t, std::size_t>> shapes() {
    std::vector<std::pair<std::size_t, std::size_t>> out{
        {5, 256}, {5, 8192}, {9, 16384}, {3, 70001}, {2, 65536}, {2, 300000}};
    if (Impl::max_teams_per_row(Space()) > 1) {
      out.emplace_back(2, 1100000);
    }
    out.emplace_back(40, 20000);
    return out;
  }
};

TYPED_TEST_SUITE_P(WorkspaceTest);

TYPED_TEST_P(WorkspaceTest, RMSNormWithRstd) {
  using Space = typename TestFixture::Space;
  using Accumulation = typename TestFixture::Accumulation;
  Workspace<Space> workspace;
  for (auto [rows, n] : TestFixture::shapes()) {
    typename TypeParam::matrix x("x", rows, n), y("y", rows, n);
    typename TypeParam::vector weight("weight", n);
    Kokkos::View<Accumulation*, Space> rstd("rstd", rows);
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(weight, n + 1);
    Testing::poison(y, TestFixture::nan);
    Testing::poison(rstd, TestFixture::nan);
    rms_norm(Space(), x, weight, y, TestFixture::eps, rstd, workspace);
    Space().fence();
    const std::string what =
        "rows=" + std::to_string(rows) + " N=" + std::to_string(n);
    expect_reference_result(x, weight, y, TestFixture::eps, what);
    expect_reference_rstd(x, rstd, TestFixture::eps, "rstd, " + what);
  }
}

TYPED_TEST_P(WorkspaceTest, AddRMSNormInPlace) {
  // sum over the residual and y over x, as vLLM calls it: a team reads its
  // chunk before it writes it.
  using Space = typename TestFixture::Space;
  Workspace<Space> workspace;
  for (auto [rows, n] : TestFixture::shapes()) {
    typename TypeParam::matrix x("x", rows, n), residual("residual", rows, n);
    typename TypeParam::vector weight("weight", n);
    Testing::fill_uniform(x, n);
    Testing::fill_uniform(residual, n + 1);
    Testing::fill_uniform(weight, n + 2);
    Testing::HostMatrix expected_sum = Testing::to_host_doubles(x);
    const auto residual_before = Testing::to_host_doubles(residual);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < n; ++j)
        expected_sum(i, j) += residual_before(i, j);
    add_rms_norm(Space(), x, residual, residual, weight, x, TestFixture::eps,
                 workspace);
    Space().fence();
    const std::string what =
        "rows=" + std::to_string(rows) + " N=" + std::to_string(n);
    expect_close<typename TypeParam::value_type>(
        Testing::to_host_doubles(residual), expected_sum, "sum, " + what);
    expect_reference_result(residual, weight, x, TestFixture::eps,
                            "y, " + what);
  }
}

TYPED_TEST_P(WorkspaceTest, Release) {
  // release() frees the memory; the next call that needs some allocates it
  // again and gives the bits a workspace never released gives (the weight
  // gradient is deterministic).
  using Space = typename TestFixture::Space;
  Workspace<Space> released, fresh;
  EXPECT_GE(released.reserve(Space(), 4096).extent(0), 4096u);
  released.release();
  EXPECT_EQ(released.reserve(Space(), 0).extent(0), 0u);
  const std::size_t rows = 5, n = 300;
  typename TypeParam::matrix dy("dy", rows, n), x("x", rows, n),
      dx("dx", rows, n);
  typename TypeParam::vector weight("weight", n), dweight("dweight", n),
      dweight_fresh("dweight_fresh", n);
  Kokkos::View<typename TestFixture::Accumulation*, Space> rstd("rstd", rows);
  Testing::fill_uniform(dy, 1);
  Testing::fill_uniform(x, 2);
  Testing::fill_uniform(weight, 3);
  Testing::poison(dweight, TestFixture::nan);
  Testing::poison(dweight_fresh, TestFixture::nan);
  rms_norm(Space(), x, weight, dx, TestFixture::eps, rstd);
  rms_norm_backward(Space(), dy, x, weight, rstd, dx, dweight, released);
  rms_norm_backward(Space(), dy, x, weight, rstd, dx, dweight_fresh, fresh);
  Space().fence();
  EXPECT_GT(released.reserve(Space(), 0).extent(0), 0u);
  const auto got = Testing::to_host_doubles_1d(dweight);
  const auto expected = Testing::to_host_doubles_1d(dweight_fresh);
  for (std::size_t j = 0; j < n; ++j) {
    ASSERT_FALSE(std::isnan(expected(j))) << "dweight(" << j << ") unset";
    ASSERT_EQ(got(j), expected(j)) << "dweight(" << j << ")";
  }
}

TYPED_TEST_P(WorkspaceTest, ServesOneInstance) {
  // A workspace serves the instance of its first call: a call on another
  // instance throws, naming the function, and writes nothing; after
  // release() it serves the other. Kokkos before 4.1 cannot tell instances
  // apart (see Impl::same_instance).
#if KOKKOS_VERSION >= 40100
  using Space = typename TestFixture::Space;
  if (Space().concurrency() < 2) {
    GTEST_SKIP() << "one thread: Kokkos cannot partition this space";
  }
  const auto spaces = Kokkos::Experimental::partition_space(Space(), 1, 1);
  if (spaces[0] == spaces[1]) {
    GTEST_SKIP() << "this backend has one instance";
  }
  const std::size_t rows = 5, n = 300;
  typename TypeParam::matrix dy("dy", rows, n), x("x", rows, n),
      dx("dx", rows, n);
  typename TypeParam::vector weight("weight", n), dweight("dweight", n);
  Kokkos::View<typename TestFixture::Accumulation*, Space> rstd("rstd", rows);
  Testing::fill_uniform(dy, 1);
  Testing::fill_uniform(x, 2);
  Testing::fill_uniform(weight, 3);
  rms_norm(spaces[0], x, weight, dx, TestFixture::eps, rstd);
  Workspace<Space> workspace;
  rms_norm_backward(spaces[0], dy, x, weight, rstd, dx, dweight, workspace);
  spaces[0].fence();
  Testing::poison(dx, TestFixture::nan);
  Testing::poison(dweight, TestFixture::nan);
  try {
    rms_norm_backward(spaces[1], dy, x, weight, rstd, dx, dweight, workspace);
    ADD_FAILURE() << "a call on a second instance did not throw";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(
        std::string(error.what())
            .find("KokkosRMSNorm::rms_norm_backward: workspace serves another "
                  "execution space instance"),
        std::string::npos)
        << error.what();
  }
  spaces[1].fence();
  const auto dx_after = Testing::to_host_doubles(dx);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_TRUE(std::isnan(dx_after(i, j)))
          << "dx written, (" << i << ", " << j << ")";
    }
  }
  workspace.release();
  rms_norm_backward(spaces[1], dy, x, weight, rstd, dx, dweight, workspace);
  spaces[1].fence();
  EXPECT_FALSE(std::isnan(Testing::to_host_doubles(dx)(0, 0)));
#else
  GTEST_SKIP() << "Kokkos before 4.1 cannot compare instances";
#endif
}

TYPED_TEST_P(WorkspaceTest, GrowsSafelyFromTwoThreads) {
  // Two host threads growing one workspace at once, in alternation of
  // sizes: each gets at least what it asked for, and nothing is freed twice.
#if defined(KOKKOS_INTERNAL_NOT_PARALLEL) || \
    defined(KOKKOS_ENABLE_ATOMICS_BYPASS)
  // A Kokkos with no parallel backend (3.x) or with atomics bypassed (4.x)
  // counts a View's references with plain arithmetic, so copies of one View
  // dropped on two host threads race inside Kokkos (a leak under ASan).
  GTEST_SKIP() << "this Kokkos's View reference counts are not atomic";
#else
  using Space = typename TestFixture::Space;
  Workspace<Space> workspace;
  const auto grow = [&](std::size_t first) {
    for (std::size_t bytes = first; bytes < (std::size_t(1) << 20);
         bytes = bytes * 3 / 2 + 1) {
      ASSERT_GE(workspace.reserve(Space(), bytes).extent(0), bytes);
    }
  };
  std::thread one(grow, 1), two(grow, 2);
  one.join();
  two.join();
#endif
}

REGISTER_TYPED_TEST_SUITE_P(WorkspaceTest, RMSNormWithRstd, AddRMSNormInPlace,
                            Release, ServesOneInstance,
                            GrowsSafelyFromTwoThreads);

}  // namespace KokkosRMSNorm::Test

#endif
