// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_HEADROWS_HPP
#define KOKKOSRMSNORM_TEST_HEADROWS_HPP

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_AllClose.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"
#include "Test_QuantizedReference.hpp"

namespace KokkosRMSNorm::Test {

// Rows with independent strides: the q and k heads of a fused qkv buffer,
// (tokens, heads, head_dim) of strides (qkv row pitch, head_dim, 1), as
// Qwen3-style QK-norm normalizes them in place; and rank-4 (batch,
// sequence, heads, head_dim) Views. Each result is compared head by head
// (a head's rows are a rank-2 View) with the double host reference.
template <class Case>
class HeadRowsTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Accumulation =
      std::conditional_t<std::is_same_v<T, double>, double, float>;
  using Buffer = Kokkos::View<T**, Kokkos::LayoutRight, Space>;
  using Heads =
      Kokkos::View<T***, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged>;
  static constexpr double eps = 1e-6;

  // A fused buffer of q (q_heads), k and v (kv_heads each) heads of
  // head_dim values a token, `padding` values more a row, filled at random.
  struct Fused {
    Buffer qkv;
    std::size_t q_heads, kv_heads, head_dim;

    Fused(std::size_t tokens, std::size_t q_heads_, std::size_t kv_heads_,
          std::size_t head_dim_, std::size_t padding, std::uint64_t seed)
        : qkv("qkv", tokens, (q_heads_ + 2 * kv_heads_) * head_dim_ + padding),
          q_heads(q_heads_),
          kv_heads(kv_heads_),
          head_dim(head_dim_) {
      Testing::fill_uniform(qkv, seed);
    }

    Heads heads(std::size_t first, std::size_t count) const {
      return Heads(qkv.data() + first * head_dim,
                   Kokkos::LayoutStride(qkv.extent(0), qkv.stride(0), count,
                                        head_dim, head_dim, 1));
    }
    Heads q() const { return heads(0, q_heads); }
    Heads k() const { return heads(q_heads, kv_heads); }
  };

  // The rows of a (tokens, heads, N) View on the host as doubles, row
  // t * heads + h being (t, h), the order of the kernels' rows.
  template <class View3>
  static Testing::HostMatrix rows_of(const View3& view) {
    const std::size_t tokens = view.extent(0), heads = view.extent(1);
    Testing::HostMatrix rows("rows", tokens * heads, view.extent(2));
    for (std::size_t h = 0; h < heads; ++h) {
      const auto head = Testing::to_host_doubles(
          Kokkos::subview(view, Kokkos::ALL, h, Kokkos::ALL));
      for (std::size_t t = 0; t < tokens; ++t) {
        for (std::size_t j = 0; j < view.extent(2); ++j) {
          rows(t * heads + h, j) = head(t, j);
        }
      }
    }
    return rows;
  }

  // One value a (token, head) as a row of values in the same order.
  template <class View2>
  static Testing::HostVector values_of(const View2& view) {
    const auto values = Testing::to_host_doubles(view);
    Testing::HostVector out("values", view.size());
    for (std::size_t t = 0; t < view.extent(0); ++t) {
      for (std::size_t h = 0; h < view.extent(1); ++h) {
        out(t * view.extent(1) + h) = values(t, h);
      }
    }
    return out;
  }

  static void expect_normalized(const Testing::HostMatrix& before,
                                const Testing::HostVector& factors,
                                const Testing::HostMatrix& after,
                                const std::string& what) {
    expect_close<T>(after, Testing::reference_rms_norm(before, factors, eps),
                    what);
  }
};

TYPED_TEST_SUITE_P(HeadRowsTest);

TYPED_TEST_P(HeadRowsTest, QKNormInPlace) {
  // q's heads and k's, each normalized in place by its own weight of
  // head_dim values; v and the padding stay as they were, bit for bit.
  // head_dim 50 and a padded pitch leave Packs: element by element.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  for (std::size_t head_dim : {64, 128, 256, 50, 1}) {
    for (std::size_t tokens : {1, 37}) {
      for (std::size_t padding : {0, 3}) {
        const std::string what = "head_dim=" + std::to_string(head_dim) +
                                 " tokens=" + std::to_string(tokens) +
                                 " padding=" + std::to_string(padding);
        const typename TestFixture::Fused fused(tokens, 4, 2, head_dim, padding,
                                                head_dim + tokens);
        typename TestFixture::Buffer before("before", fused.qkv.extent(0),
                                            fused.qkv.extent(1));
        Kokkos::deep_copy(before, fused.qkv);
        const auto q_before = TestFixture::rows_of(fused.q());
        const auto k_before = TestFixture::rows_of(fused.k());
        Kokkos::View<T*, Space> q_weight("q_weight", head_dim),
            k_weight("k_weight", head_dim);
        Testing::fill_uniform(q_weight, 5);
        Testing::fill_uniform(k_weight, 6);

        rms_norm(Space(), fused.q(), q_weight, fused.q(), TestFixture::eps);
        rms_norm(Space(), fused.k(), k_weight, fused.k(), TestFixture::eps);
        Space().fence();

        TestFixture::expect_normalized(
            q_before, Testing::to_host_doubles_1d(q_weight),
            TestFixture::rows_of(fused.q()), "q, " + what);
        TestFixture::expect_normalized(
            k_before, Testing::to_host_doubles_1d(k_weight),
            TestFixture::rows_of(fused.k()), "k, " + what);
        const auto after = Testing::to_host_doubles(fused.qkv);
        const auto expected = Testing::to_host_doubles(before);
        const std::size_t v_begin = 6 * head_dim;
        for (std::size_t t = 0; t < tokens; ++t) {
          for (std::size_t j = v_begin; j < after.extent(1); ++j) {
            ASSERT_EQ(after(t, j), expected(t, j))
                << "v or padding written at (" << t << ", " << j << "), "
                << what;
          }
        }
      }
    }
  }
}

TYPED_TEST_P(HeadRowsTest, IntoAnotherLayoutWithRstd) {
  // q's heads normalized into a View of the case's layout (LayoutLeft puts
  // a row's values tokens x heads apart), with rstd a (token, head).
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  const std::size_t tokens = 33, heads = 8, head_dim = 128;
  const typename TestFixture::Fused fused(tokens, heads, 2, head_dim, 0, 11);
  Kokkos::View<T***, typename TypeParam::layout, Space> y("y", tokens, heads,
                                                          head_dim);
  Kokkos::View<typename TestFixture::Accumulation**, Space> rstd("rstd", tokens,
                                                                 heads);
  Kokkos::View<T*, Space> weight("weight", head_dim);
  Testing::fill_uniform(weight, 12);
  Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
  Testing::poison(rstd, std::numeric_limits<double>::quiet_NaN());

  rms_norm(Space(), fused.q(), weight, y, TestFixture::eps, rstd);
  Space().fence();

  const auto x = TestFixture::rows_of(fused.q());
  TestFixture::expect_normalized(x, Testing::to_host_doubles_1d(weight),
                                 TestFixture::rows_of(y), "y");
  expect_close<typename TestFixture::Accumulation>(
      Testing::as_row(TestFixture::values_of(rstd)),
      Testing::as_row(Testing::reference_rstd(x, TestFixture::eps)), "rstd");
}

TYPED_TEST_P(HeadRowsTest, AddInPlace) {
  // add_rms_norm(x, residual, residual, weight, x): x q's heads in the
  // fused buffer, residual a LayoutRight (tokens, heads, head_dim) View.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  const std::size_t tokens = 20, heads = 4, head_dim = 64;
  const typename TestFixture::Fused fused(tokens, heads, 1, head_dim, 0, 21);
  Kokkos::View<T***, Space> residual("residual", tokens, heads, head_dim);
  Kokkos::View<T*, Space> weight("weight", head_dim);
  Testing::fill_uniform(Kokkos::View<T**, Space, Kokkos::MemoryUnmanaged>(
                            residual.data(), tokens * heads, head_dim),
                        22);
  Testing::fill_uniform(weight, 23);
  const auto x_before = TestFixture::rows_of(fused.q());
  const auto residual_before = TestFixture::rows_of(residual);

  add_rms_norm(Space(), fused.q(), residual, residual, weight, fused.q(),
               TestFixture::eps);
  Space().fence();

  Testing::HostMatrix expected_sum("expected sum", x_before.extent(0),
                                   x_before.extent(1));
  for (std::size_t i = 0; i < x_before.extent(0); ++i) {
    for (std::size_t j = 0; j < x_before.extent(1); ++j) {
      expected_sum(i, j) = x_before(i, j) + residual_before(i, j);
    }
  }
  const auto sum = TestFixture::rows_of(residual);
  expect_close<T>(sum, expected_sum, "sum");
  TestFixture::expect_normalized(sum, Testing::to_host_doubles_1d(weight),
                                 TestFixture::rows_of(fused.q()), "y");
}

TYPED_TEST_P(HeadRowsTest, Backward) {
  // dx written into k's heads of a second fused buffer from dy, x in q's
  // heads and their rstd; dweight summed over every (token, head).
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  const std::size_t tokens = 24, heads = 4, head_dim = 128;
  const typename TestFixture::Fused x(tokens, heads, heads, head_dim, 0, 31),
      dx(tokens, heads, heads, head_dim, 0, 32);
  Kokkos::View<T***, Space> dy("dy", tokens, heads, head_dim);
  Kokkos::View<typename TestFixture::Accumulation**, Space> rstd("rstd", tokens,
                                                                 heads);
  Kokkos::View<T*, Space> weight("weight", head_dim),
      dweight("dweight", head_dim);
  Testing::fill_uniform(Kokkos::View<T**, Space, Kokkos::MemoryUnmanaged>(
                            dy.data(), tokens * heads, head_dim),
                        33);
  Testing::fill_uniform(weight, 34);
  Kokkos::View<T***, Space> y("y", tokens, heads, head_dim);
  rms_norm(Space(), x.q(), weight, y, TestFixture::eps, rstd);
  Testing::poison(dweight, std::numeric_limits<double>::quiet_NaN());

  Workspace<Space> workspace;
  rms_norm_backward(Space(), dy, x.q(), weight, rstd, dx.k(), dweight,
                    workspace);
  Space().fence();

  const auto expected = Testing::reference_rms_norm_backward(
      TestFixture::rows_of(dy), TestFixture::rows_of(x.q()),
      Testing::to_host_doubles_1d(weight), TestFixture::values_of(rstd));
  const auto dx_mismatches = Testing::allclose_to_scale(
      TestFixture::rows_of(dx.k()), expected.dx, expected.dx_scale,
      Tolerance<T>::rtol, Tolerance<T>::atol);
  EXPECT_FALSE(dx_mismatches)
      << dx_mismatches.count << " dx mismatches, first " << dx_mismatches.first;
  const auto dweight_mismatches = Testing::allclose_to_scale(
      Testing::as_row(Testing::to_host_doubles_1d(dweight)),
      Testing::as_row(expected.dweight),
      Testing::as_row(expected.dweight_scale), Tolerance<T>::rtol,
      Tolerance<T>::atol);
  EXPECT_FALSE(dweight_mismatches)
      << dweight_mismatches.count << " dweight mismatches, first "
      << dweight_mismatches.first;
}

TYPED_TEST_P(HeadRowsTest, Rank4) {
  // (batch, sequence, heads, head_dim): q's heads over a (batch, sequence,
  // qkv row) buffer into LayoutRight y and rstd (tokens batch-major), and
  // LayoutLeft x, y and rstd (tokens sequence-major), compared batch by
  // batch.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  using Accumulation = typename TestFixture::Accumulation;
  const std::size_t batch = 3, sequence = 7, heads = 4, head_dim = 64;
  const auto expect_rstd_by_batch = [&](const auto& x, const auto& rstd,
                                        const std::string& what) {
    for (std::size_t b = 0; b < batch; ++b) {
      const auto x_rows = TestFixture::rows_of(
          Kokkos::subview(x, b, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL));
      expect_close<Accumulation>(
          Testing::as_row(TestFixture::values_of(
              Kokkos::subview(rstd, b, Kokkos::ALL, Kokkos::ALL))),
          Testing::as_row(Testing::reference_rstd(x_rows, TestFixture::eps)),
          "rstd, " + what + ", batch " + std::to_string(b));
    }
  };
  Kokkos::View<T*, Space> weight("weight", head_dim);
  Testing::fill_uniform(weight, 42);
  const auto factors = Testing::to_host_doubles_1d(weight);
  const auto expect_normalized_by_batch =
      [&](const auto& x_before, const auto& y, const std::string& what) {
        for (std::size_t b = 0; b < batch; ++b) {
          TestFixture::expect_normalized(
              TestFixture::rows_of(Kokkos::subview(x_before, b, Kokkos::ALL,
                                                   Kokkos::ALL, Kokkos::ALL)),
              factors,
              TestFixture::rows_of(
                  Kokkos::subview(y, b, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL)),
              what + ", batch " + std::to_string(b));
        }
      };

  const typename TestFixture::Fused fused(batch * sequence, heads, 2, head_dim,
                                          0, 41);
  const std::size_t pitch = fused.qkv.stride(0);
  const Kokkos::View<T****, Kokkos::LayoutStride, Space,
                     Kokkos::MemoryUnmanaged>
      x(fused.qkv.data(),
        Kokkos::LayoutStride(batch, sequence * pitch, sequence, pitch, heads,
                             head_dim, head_dim, 1));
  Kokkos::View<T****, Kokkos::LayoutRight, Space> y("y", batch, sequence, heads,
                                                    head_dim);
  Kokkos::View<Accumulation***, Kokkos::LayoutRight, Space> rstd(
      "rstd", batch, sequence, heads);
  Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
  rms_norm(Space(), x, weight, y, TestFixture::eps, rstd);
  Space().fence();
  expect_normalized_by_batch(x, y, "batch-major");
  expect_rstd_by_batch(x, rstd, "batch-major");

  Kokkos::View<T****, Kokkos::LayoutLeft, Space> x_left(
      "x_left", batch, sequence, heads, head_dim),
      y_left("y_left", batch, sequence, heads, head_dim);
  Kokkos::View<Accumulation***, Kokkos::LayoutLeft, Space> rstd_left(
      "rstd_left", batch, sequence, heads);
  Kokkos::deep_copy(x_left, y);  // normalized rows: fresh inputs
  Testing::poison(y_left, std::numeric_limits<double>::quiet_NaN());
  rms_norm(Space(), x_left, weight, y_left, TestFixture::eps, rstd_left);
  Space().fence();
  expect_normalized_by_batch(x_left, y_left, "sequence-major");
  expect_rstd_by_batch(x_left, rstd_left, "sequence-major");
}

TYPED_TEST_P(HeadRowsTest, QuantizedPerRow) {
  // FP8 with a scale a (token, head) from q's heads into a LayoutRight
  // (tokens, heads, head_dim) View of codes. Double values have no
  // quantized output.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  if constexpr (std::is_same_v<T, double>) {
    GTEST_SKIP() << "quantized outputs take float, half_t or bhalf_t";
  } else {
    const std::size_t tokens = 19, heads = 4, head_dim = 128;
    const typename TestFixture::Fused fused(tokens, heads, 2, head_dim, 0, 51);
    Kokkos::View<std::uint8_t***, Space> codes("codes", tokens, heads,
                                               head_dim);
    Kokkos::View<float**, Space> scales("scales", tokens, heads);
    Kokkos::View<T*, Space> weight("weight", head_dim);
    Testing::fill_uniform(weight, 52);

    rms_norm_quantized(Space(), fused.q(), weight, codes, TestFixture::eps,
                       fp8_e4m3_per_row(scales, 1e-6f));
    Space().fence();

    const Testing::HostVector scale_values = TestFixture::values_of(scales);
    expect_quantized_reference<Fp8E4M3>(
        TestFixture::rows_of(fused.q()), Testing::to_host_doubles_1d(weight),
        TestFixture::rows_of(codes), TestFixture::eps, 0.0, 1e-6, &scale_values,
        "FP8 a scale a row");
  }
}

TYPED_TEST_P(HeadRowsTest, BatchAndSequenceNotEvenlySpaced) {
  // Rank-3 (batch, sequence, N) rows of the case's layout cut to three of
  // four positions of the strided one of batch and sequence: in neither
  // order are they evenly spaced, so no rank-2 View spans them; they are
  // rows of heads, normalized into y cut alike.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  using Layout = typename TypeParam::layout;
  using Cube = Kokkos::View<T***, Layout, Space>;
  constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
  Cube x_all("x", 4, 4, 8), y_all("y", 4, 4, 8);
  Kokkos::View<T*, Space> weight("weight", 8);
  Testing::fill_uniform(
      Kokkos::View<T**, Space, Kokkos::MemoryUnmanaged>(x_all.data(), 16, 8),
      71);
  Testing::fill_uniform(weight, 72);
  Testing::poison(y_all, std::numeric_limits<double>::quiet_NaN());
  const auto three = Kokkos::make_pair(0, 3);
  const auto cut = [&](const Cube& all) {
    if constexpr (right) {
      return Kokkos::subview(all, Kokkos::ALL, three, Kokkos::ALL);
    } else {
      return Kokkos::subview(all, three, Kokkos::ALL, Kokkos::ALL);
    }
  };
  rms_norm(Space(), cut(x_all), weight, cut(y_all), TestFixture::eps);
  Space().fence();
  TestFixture::expect_normalized(TestFixture::rows_of(cut(x_all)),
                                 Testing::to_host_doubles_1d(weight),
                                 TestFixture::rows_of(cut(y_all)), "y");
}

TYPED_TEST_P(HeadRowsTest, ArgumentsOfAnotherLayout) {
  // x and y rank 3 in the case's layout, the residual and sum, or dy, in
  // the other: their (batch, sequence) rows lie in the other order, so the
  // rows of all are taken as rows of heads, each argument by its own
  // strides, and row i of each is the same (batch, sequence).
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  using Layout = typename TypeParam::layout;
  using Other = std::conditional_t<std::is_same_v<Layout, Kokkos::LayoutRight>,
                                   Kokkos::LayoutLeft, Kokkos::LayoutRight>;
  const auto fill = [](const auto& view, std::uint64_t seed) {
    const auto host = Kokkos::create_mirror_view(view);
    std::mt19937_64 generator(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (std::size_t b = 0; b < view.extent(0); ++b)
      for (std::size_t s = 0; s < view.extent(1); ++s)
        for (std::size_t j = 0; j < view.extent(2); ++j)
          host(b, s, j) = static_cast<T>(uniform(generator));
    Kokkos::deep_copy(view, host);
  };
  Kokkos::View<T***, Layout, Space> x("x", 3, 5, 8), y("y", 3, 5, 8);
  Kokkos::View<T***, Other, Space> residual("residual", 3, 5, 8),
      sum("sum", 3, 5, 8);
  Kokkos::View<T*, Space> weight("weight", 8);
  fill(x, 81);
  fill(residual, 82);
  Testing::fill_uniform(weight, 83);
  const auto x_before = TestFixture::rows_of(x);
  const auto residual_before = TestFixture::rows_of(residual);

  add_rms_norm(Space(), x, residual, sum, weight, y, TestFixture::eps);
  Space().fence();
  Testing::HostMatrix expected_sum("expected sum", x_before.extent(0), 8);
  for (std::size_t i = 0; i < x_before.extent(0); ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      expected_sum(i, j) = x_before(i, j) + residual_before(i, j);
    }
  }
  expect_close<T>(TestFixture::rows_of(sum), expected_sum, "sum");
  TestFixture::expect_normalized(TestFixture::rows_of(sum),
                                 Testing::to_host_doubles_1d(weight),
                                 TestFixture::rows_of(y), "y");

  // dy of the other layout: dx = the gradient of rms_norm at x.
  Kokkos::View<typename TestFixture::Accumulation**, Layout, Space> rstd("rstd",
                                                                         3, 5);
  Kokkos::View<T***, Layout, Space> dx("dx", 3, 5, 8);
  Kokkos::View<T*, Space> dweight("dweight", 8);
  rms_norm(Space(), x, weight, y, TestFixture::eps, rstd);
  Workspace<Space> workspace;
  rms_norm_backward(Space(), residual, x, weight, rstd, dx, dweight, workspace);
  Space().fence();
  const auto expected = Testing::reference_rms_norm_backward(
      residual_before, x_before, Testing::to_host_doubles_1d(weight),
      TestFixture::values_of(rstd));
  const auto mismatches = Testing::allclose_to_scale(
      TestFixture::rows_of(dx), expected.dx, expected.dx_scale,
      Tolerance<T>::rtol, Tolerance<T>::atol);
  EXPECT_FALSE(mismatches) << mismatches.count << " dx mismatches, first "
                           << mismatches.first;
}

TYPED_TEST_P(HeadRowsTest, Arguments) {
  // k's heads may be y for q's heads of the same buffer (apart, row by
  // row); heads overlapping x's and rank-4 tokens not evenly spaced are
  // rejected before anything is written; rstd may be of any layout; a
  // head_dim of 0 is a no-op.
  using T = typename TestFixture::T;
  using Space = typename TestFixture::Space;
  const std::size_t tokens = 6, heads = 2, head_dim = 64;
  const typename TestFixture::Fused fused(tokens, heads, heads, head_dim, 0,
                                          61);
  Kokkos::View<T*, Space> weight("weight", head_dim);
  Testing::fill_uniform(weight, 62);
  const auto q_before = TestFixture::rows_of(fused.q());
  rms_norm(Space(), fused.q(), weight, fused.k(), TestFixture::eps);
  Space().fence();
  TestFixture::expect_normalized(q_before, Testing::to_host_doubles_1d(weight),
                                 TestFixture::rows_of(fused.k()), "k from q");

  constexpr double sentinel = 7;
  Testing::poison(fused.qkv, sentinel);
  expect_invalid(
      [&] {
        rms_norm(Space(), fused.q(), weight, fused.heads(1, heads),
                 TestFixture::eps);
      },
      "KokkosRMSNorm::rms_norm", "y extents", "overlaps x");
  expect_unwritten(fused.qkv, sentinel, "qkv");

  const Kokkos::View<T****, Kokkos::LayoutStride, Space,
                     Kokkos::MemoryUnmanaged>
      uneven(fused.qkv.data(), Kokkos::LayoutStride(2, fused.qkv.stride(0), 3,
                                                    fused.qkv.stride(0), heads,
                                                    head_dim, head_dim, 1));
  Kokkos::View<T****, Kokkos::LayoutRight, Space> y("y", 2, 3, heads, head_dim);
  Testing::poison(y, sentinel);
  expect_invalid(
      [&] { rms_norm(Space(), uneven, weight, y, TestFixture::eps); },
      "x extents (2, 3, 2, 64)", "batch-major");
  expect_unwritten(y, sentinel, "y");

  // rstd of any layout: a value a (token, head).
  Kokkos::View<T***, Space> y3("y3", tokens, heads, head_dim);
  Kokkos::View<typename TestFixture::Accumulation**, Kokkos::LayoutLeft, Space>
      rstd("rstd", tokens, heads);
  Testing::fill_uniform(fused.qkv, 64);
  rms_norm(Space(), fused.q(), weight, y3, TestFixture::eps, rstd);
  Space().fence();
  expect_close<typename TestFixture::Accumulation>(
      Testing::as_row(TestFixture::values_of(rstd)),
      Testing::as_row(Testing::reference_rstd(TestFixture::rows_of(fused.q()),
                                              TestFixture::eps)),
      "rstd of LayoutLeft");

  const typename TestFixture::Fused empty(tokens, heads, heads, 0, 0, 63);
  Kokkos::View<T*, Space> no_values("no_values", 0);
  EXPECT_NO_THROW(
      rms_norm(Space(), empty.q(), no_values, empty.q(), TestFixture::eps));
}

REGISTER_TYPED_TEST_SUITE_P(HeadRowsTest, QKNormInPlace,
                            IntoAnotherLayoutWithRstd, AddInPlace, Backward,
                            Rank4, QuantizedPerRow,
                            BatchAndSequenceNotEvenlySpaced,
                            ArgumentsOfAnotherLayout, Arguments);

}  // namespace KokkosRMSNorm::Test

#endif
