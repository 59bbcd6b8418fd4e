// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_OVERLAP_HPP
#define KOKKOSRMSNORM_TEST_OVERLAP_HPP

#include <cstddef>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// Outputs that share memory with another argument, other than as the same
// View where the documentation allows it, are rejected before anything is
// written; arguments that only share an allocation are not.
template <class Case>
class OverlapTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Matrix =
      Kokkos::View<T**, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged>;
  using Vector = Kokkos::View<T*, Space, Kokkos::MemoryUnmanaged>;
  using Accumulation = Impl::accumulation_type_t<T>;
  static constexpr std::size_t rows = 6, n = 64;
  static constexpr double eps = 1e-6, sentinel = 42;

  // One allocation that the Views of a case are carved from, seeded.
  Kokkos::View<T*, Space> buffer{"buffer", 8 * rows* n};

  OverlapTest() { Testing::fill_uniform(buffer, 3); }

  // rows x n from element `offset` of the buffer, rows `pitch` apart.
  Matrix matrix(std::size_t offset, std::size_t pitch = n) const {
    return Matrix(buffer.data() + offset,
                  Kokkos::LayoutStride(rows, pitch, n, 1));
  }
  Vector vector(std::size_t offset, std::size_t length = n) const {
    return Vector(buffer.data() + offset, length);
  }

  // Expects call() to be rejected naming both arguments, and the buffer
  // to keep its values.
  template <class Call>
  void expect_overlap_rejected(const Call& call, const char* output,
                               const char* other) {
    Kokkos::View<T*, Space> before("before", buffer.size());
    Kokkos::deep_copy(before, buffer);
    expect_invalid(call, std::string(output) + " extents",
                   std::string(" overlaps ") + other + " extents");
    Space().fence();
    const auto got = Testing::to_host_doubles_1d(buffer);
    const auto expected = Testing::to_host_doubles_1d(before);
    for (std::size_t i = 0; i < got.extent(0); ++i) {
      ASSERT_EQ(got(i), expected(i)) << "buffer written at " << i;
    }
  }
};

TYPED_TEST_SUITE_P(OverlapTest);

TYPED_TEST_P(OverlapTest, OutputsOverlappingInputsAreRejected) {
  using Accumulation = typename TestFixture::Accumulation;
  constexpr std::size_t rows = TestFixture::rows, n = TestFixture::n;
  constexpr double eps = TestFixture::eps;
  const auto x = this->matrix(0);
  const auto y = this->matrix(2 * rows * n);
  const auto weight = this->vector(4 * rows * n);
  typename TestFixture::Space space;
  // weight inside y
  this->expect_overlap_rejected(
      [&] { rms_norm(space, x, this->vector(2 * rows * n + n), y, eps); }, "y",
      "weight");
  // y over x shifted by a column
  this->expect_overlap_rejected(
      [&] { rms_norm(space, x, weight, this->matrix(1), eps); }, "y", "x");
  // the residual over y shifted by a row
  this->expect_overlap_rejected(
      [&] {
        add_rms_norm(space, x, this->matrix(2 * rows * n + n),
                     this->matrix(5 * rows * n), weight, y, eps);
      },
      "y", "residual");
  // rstd inside y
  Kokkos::View<Accumulation*, typename TestFixture::Space,
               Kokkos::MemoryUnmanaged>
      rstd_in_y(reinterpret_cast<Accumulation*>(y.data() + n), rows);
  this->expect_overlap_rejected(
      [&] { rms_norm(space, x, weight, y, eps, rstd_in_y); }, "rstd", "y");
  // dx over dy shifted by a row
  Kokkos::View<Accumulation*, typename TestFixture::Space> rstd("rstd", rows);
  Testing::fill_uniform(rstd, 4);
  Workspace<typename TestFixture::Space> workspace;
  this->expect_overlap_rejected(
      [&] {
        rms_norm_backward(space, y, x, weight, rstd,
                          this->matrix(2 * rows * n + n),
                          this->vector(5 * rows * n), workspace);
      },
      "dx", "dy");
  // dweight inside x
  this->expect_overlap_rejected(
      [&] {
        rms_norm_backward(space, y, x, weight, rstd, this->matrix(5 * rows * n),
                          this->vector(n), workspace);
      },
      "dweight", "x");
}

TYPED_TEST_P(OverlapTest, SharingAnAllocationIsAllowed) {
  // The columns [0, n) and [n, 2n) of rows 2n apart (q and k of a fused
  // buffer) share no element: normalizing one into the other is allowed,
  // and so is the same View as x and y (in place).
  constexpr std::size_t rows = TestFixture::rows, n = TestFixture::n;
  const auto q = this->matrix(0, 2 * n);
  const auto k = this->matrix(n, 2 * n);
  const auto weight = this->vector(4 * rows * n);
  const auto q_before = Testing::to_host_doubles(q);
  rms_norm(typename TestFixture::Space(), q, weight, k, TestFixture::eps);
  typename TestFixture::Space().fence();
  expect_close<typename TestFixture::T>(
      Testing::to_host_doubles(k),
      Testing::reference_rms_norm(q_before, Testing::to_host_doubles_1d(weight),
                                  TestFixture::eps),
      "k from q");
  rms_norm(typename TestFixture::Space(), k, weight, k, TestFixture::eps);
  typename TestFixture::Space().fence();
}

TYPED_TEST_P(OverlapTest, Footprints) {
  // The overlap test on its own: segments `pitch` apart meet exactly when
  // some element lies in both.
  const auto f = [](std::intptr_t begin, std::size_t count, std::size_t pitch,
                    std::size_t length) {
    return Impl::Footprint{begin, count, pitch, length};
  };
  EXPECT_FALSE(Impl::overlap(f(0, 4, 100, 50), f(50, 4, 100, 50)));
  EXPECT_TRUE(Impl::overlap(f(0, 4, 100, 50), f(49, 4, 100, 50)));
  EXPECT_TRUE(Impl::overlap(f(0, 4, 100, 50), f(-49, 4, 100, 50)));
  EXPECT_FALSE(Impl::overlap(f(0, 4, 100, 50), f(-50, 4, 100, 50)));
  EXPECT_FALSE(Impl::overlap(f(0, 4, 100, 50), f(350, 1, 0, 100)));
  EXPECT_TRUE(Impl::overlap(f(0, 4, 100, 50), f(349, 1, 0, 2)));
  EXPECT_FALSE(Impl::overlap(f(0, 4, 100, 50), f(400, 4, 100, 50)));
  EXPECT_TRUE(Impl::overlap(f(0, 4, 100, 50), f(300, 4, 100, 50)));
  EXPECT_FALSE(Impl::overlap(f(0, 1, 0, 8), f(8, 1, 0, 8)));
}

REGISTER_TYPED_TEST_SUITE_P(OverlapTest, OutputsOverlappingInputsAreRejected,
                            SharingAnAllocationIsAllowed, Footprints);

}  // namespace KokkosRMSNorm::Test

#endif
