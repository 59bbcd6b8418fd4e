// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_QUANTIZED_HPP
#define KOKKOSRMSNORM_TEST_QUANTIZED_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"
#include "Test_QuantizedReference.hpp"

namespace KokkosRMSNorm::Test {

template <class Case>
class QuantizedTest : public ::testing::Test {
 protected:
  using T = typename Case::value_type;
  using Space = typename Case::execution_space;
  using Layout = typename Case::layout;
  using Codes = Kokkos::View<std::uint8_t**, Layout, Space>;
  using SignedCodes = Kokkos::View<std::int8_t**, Layout, Space>;
  using Scales = Kokkos::View<float*, Space>;
  static constexpr double eps = 1e-6;
  static constexpr std::uint8_t poison_code = 0x5a;
  // Quantized outputs take float and 16-bit rows (a static_assert otherwise:
  // compile_fail/quantized_double.cpp).
  static constexpr bool takes_rows = !std::is_same_v<T, double>;

  // Runs `quantize` (rms_norm_quantized with the given Quantization, or
  // add_rms_norm_quantized) on x of rows x n, y poisoned, and compares y and
  // the per-row scales with the reference of `h`, the rows normalized (x, or
  // the sum the call stored).
  template <class Format, class Y, class Call>
  static void expect_call_matches(std::size_t rows, std::size_t n, double scale,
                                  bool per_row, const Call& call,
                                  const std::string& what) {
    typename Case::matrix x("x", rows, n);
    typename Case::vector weight("weight", n);
    Y y("y", rows, n);
    Scales scales("scales", rows);
    Testing::fill_uniform(x, rows * 7 + n);
    Testing::fill_uniform(weight, n + 1);
    Testing::poison(y, poison_code);
    const float minimum = 1e-3f;
    const auto h = call(x, weight, y, scales, minimum);
    Space().fence();
    const Testing::HostVector host_scales = Testing::to_host_doubles_1d(scales);
    expect_quantized_reference<Format>(
        Testing::to_host_doubles(h), Testing::to_host_doubles_1d(weight),
        Testing::to_host_doubles(y), eps, scale, minimum,
        per_row ? &host_scales : nullptr, what);
  }

  // rms_norm_quantized in each format and scale mode, y of uint8_t for FP8
  // and int8_t for int8 (either holds either).
  static void expect_every_quantization_matches(std::size_t rows,
                                                std::size_t n) {
    const std::string shape =
        " rows=" + std::to_string(rows) + " N=" + std::to_string(n);
    const auto norm = [](auto quantization) {
      return [=](const auto& x, const auto& weight, const auto& y,
                 const auto& scales, float minimum) {
        rms_norm_quantized(Space(), x, weight, y, eps,
                           quantization(scales, minimum));
        return x;
      };
    };
    const double fp8_scale = 2.0 / 448, int8_scale = 2.0 / 127;
    expect_call_matches<Fp8E4M3, Codes>(
        rows, n, fp8_scale, false,
        norm([=](const auto&, float) { return fp8_e4m3(float(fp8_scale)); }),
        "fp8 static" + shape);
    expect_call_matches<Fp8E4M3, Codes>(
        rows, n, 0, true, norm([](const auto& scales, float minimum) {
          return fp8_e4m3_per_row(scales, minimum);
        }),
        "fp8 per row" + shape);
    expect_call_matches<Int8, SignedCodes>(
        rows, n, int8_scale, false,
        norm([=](const auto&, float) { return int8(float(int8_scale)); }),
        "int8 static" + shape);
    expect_call_matches<Int8, Codes>(
        rows, n, 0, true, norm([](const auto& scales, float minimum) {
          return int8_per_row(scales, minimum);
        }),
        "int8 per row" + shape);
  }
};

TYPED_TEST_SUITE_P(QuantizedTest);

TYPED_TEST_P(QuantizedTest, EveryFormatAndScale) {
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    this->expect_every_quantization_matches(64, 256);
  }
}

TYPED_TEST_P(QuantizedTest, RowLengthsAndCounts) {
  // Rows of one value to rows swept twice on a GPU (20000 floats), rows a
  // thread's vector lanes share (64, 128), rows not on a Pack (1000 16-bit
  // values, 4097), rows of a team held in scratch (8000 floats and 16384
  // 16-bit values in 160 rows, a call that is not latency-bound), rows that
  // a host's threads share (140000).
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    for (std::size_t n : {1, 3, 64, 128, 1000, 4097, 8000, 20000, 140000}) {
      this->expect_every_quantization_matches(5, n);
    }
    for (std::size_t n : {8000, 16384}) {
      this->expect_every_quantization_matches(160, n);
    }
    for (std::size_t rows : {0, 1, 1000}) {
      this->expect_every_quantization_matches(rows, 128);
    }
  }
}

TYPED_TEST_P(QuantizedTest, AddInPlace) {
  // vLLM's fused_add_rms_norm with a quantized output: the sum overwrites
  // the residual, y is the quantized norm of the sum.
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    using Space = typename TestFixture::Space;
    for (std::size_t n : {256, 4097}) {
      typename TypeParam::matrix residual("residual", 9, n);
      Testing::fill_uniform(residual, n + 5);
      const auto residual_before = Testing::to_host_doubles(residual);
      // Allocated here and filled by a copy: Kokkos 4.6.99 (28848dfa8)
      // crashes assigning a View to a default-constructed one.
      Testing::HostMatrix x_before("x before", 9, n);
      TestFixture::template expect_call_matches<Fp8E4M3,
                                                typename TestFixture::Codes>(
          9, n, 0, true,
          [&](const auto& x, const auto& weight, const auto& y,
              const auto& scales, float minimum) {
            Kokkos::deep_copy(x_before, Testing::to_host_doubles(x));
            add_rms_norm_quantized(Space(), x, residual, residual, weight, y,
                                   TestFixture::eps,
                                   fp8_e4m3_per_row(scales, minimum));
            return residual;
          },
          "add in place N=" + std::to_string(n));
      Testing::HostMatrix expected_sum("expected sum", 9, n);
      for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t j = 0; j < n; ++j)
          expected_sum(i, j) = x_before(i, j) + residual_before(i, j);
      expect_close<typename TestFixture::T>(Testing::to_host_doubles(residual),
                                            expected_sum, "sum");
    }
  }
}

TYPED_TEST_P(QuantizedTest, ZeroAndNaNRowsSaturation) {
  // A row of zeros takes the minimum scale and codes 0; a NaN makes its
  // row's rstd NaN, so every code of the row NaN (FP8) or 0 (int8) and the
  // scale the minimum; a small static scale saturates to +-448 and +-127.
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    using Space = typename TestFixture::Space;
    using T = typename TestFixture::T;
    const std::size_t rows = 4, n = 300;
    typename TypeParam::matrix x("x", rows, n);
    typename TypeParam::vector weight("weight", n);
    Testing::fill_uniform(x, 11);
    Testing::fill_uniform(weight, 12);
    const auto host_x = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Testing::contiguous_copy(x));
    for (std::size_t j = 0; j < n; ++j) {
      host_x(0, j) = T(0.0f);
    }
    host_x(1, 7) = T(std::numeric_limits<float>::quiet_NaN());
    const auto contiguous = Testing::contiguous_like(x);
    Kokkos::deep_copy(contiguous, host_x);
    Kokkos::deep_copy(x, contiguous);
    const float minimum = 1e-4f;
    typename TestFixture::Codes fp8("fp8", rows, n);
    typename TestFixture::SignedCodes int8_codes("int8", rows, n);
    typename TestFixture::Scales fp8_scales("fp8 scales", rows),
        int8_scales("int8 scales", rows);
    rms_norm_quantized(Space(), x, weight, fp8, TestFixture::eps,
                       fp8_e4m3_per_row(fp8_scales, minimum));
    rms_norm_quantized(Space(), x, weight, int8_codes, TestFixture::eps,
                       int8_per_row(int8_scales, minimum));
    const auto codes = Testing::to_host_doubles(fp8);
    const auto signed_codes = Testing::to_host_doubles(int8_codes);
    const auto scales = Testing::to_host_doubles_1d(fp8_scales);
    const auto int8_row_scales = Testing::to_host_doubles_1d(int8_scales);
    EXPECT_EQ(scales(0), double(minimum));
    EXPECT_EQ(scales(1), double(minimum));
    EXPECT_EQ(int8_row_scales(0), double(minimum));
    EXPECT_EQ(int8_row_scales(1), double(minimum));
    for (std::size_t j = 0; j < n; ++j) {
      EXPECT_EQ(int(codes(0, j)) & 0x7f, 0)
          << j;  // 0 times a negative weight is -0
      EXPECT_EQ(int(codes(1, j)) & 0x7f, 0x7f) << j;
      EXPECT_EQ(signed_codes(0, j), 0.0) << j;
      EXPECT_EQ(signed_codes(1, j), 0.0) << j;
    }
    const auto h = Testing::to_host_doubles(x);
    const auto factors = Testing::to_host_doubles_1d(weight);
    const auto rest = Kokkos::make_pair(std::size_t(2), rows);
    const auto rows_of = [&](const Testing::HostMatrix& m) {
      return Testing::HostMatrix(Kokkos::subview(m, rest, Kokkos::ALL));
    };
    Testing::HostVector rest_scales(Kokkos::subview(scales, rest));
    expect_quantized_reference<Fp8E4M3>(rows_of(h), factors, rows_of(codes),
                                        TestFixture::eps, 0, minimum,
                                        &rest_scales, "beside zero/NaN rows");

    // y reaches about 5 on these rows: scales of 1/448 and 1/127 saturate.
    rms_norm_quantized(Space(), x, weight, fp8, TestFixture::eps,
                       fp8_e4m3(1.0f / 448));
    rms_norm_quantized(Space(), x, weight, int8_codes, TestFixture::eps,
                       int8(1.0f / 127));
    const auto saturated = rows_of(Testing::to_host_doubles(fp8));
    const auto saturated_int8 = rows_of(Testing::to_host_doubles(int8_codes));
    int fp8_saturated = 0, int8_saturated = 0;
    for (std::size_t i = 0; i < saturated.extent(0); ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        fp8_saturated += (int(saturated(i, j)) & 0x7f) == 0x7e;
        int8_saturated += std::fabs(saturated_int8(i, j)) == 127;
      }
    }
    EXPECT_GT(fp8_saturated, 0);
    EXPECT_GT(int8_saturated, 0);
    expect_quantized_reference<Fp8E4M3>(rows_of(h), factors, saturated,
                                        TestFixture::eps, 1.0 / 448, 0, nullptr,
                                        "saturating fp8");
    expect_quantized_reference<Int8>(rows_of(h), factors, saturated_int8,
                                     TestFixture::eps, 1.0 / 127, 0, nullptr,
                                     "saturating int8");
  }
}

TYPED_TEST_P(QuantizedTest, Rank3) {
  // (batch, sequence, N) rows with a (batch, sequence) View of scales.
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    using T = typename TestFixture::T;
    using Space = typename TestFixture::Space;
    using Layout = typename TypeParam::layout;
    const std::size_t batch = 2, sequence = 3, n = 512;
    Kokkos::View<T***, Layout, Space> x("x", batch, sequence, n);
    Kokkos::View<std::uint8_t***, Layout, Space> y("y", batch, sequence, n);
    Kokkos::View<float**, Layout, Space> scales("scales", batch, sequence);
    typename TypeParam::vector weight("weight", n);
    using Rows = Kokkos::View<T**, Layout, Space, Kokkos::MemoryUnmanaged>;
    using CodeRows =
        Kokkos::View<std::uint8_t**, Layout, Space, Kokkos::MemoryUnmanaged>;
    using ScaleRows = Kokkos::View<float*, Space, Kokkos::MemoryUnmanaged>;
    const Rows x_rows(x.data(), batch * sequence, n);
    Testing::fill_uniform(x_rows, 41);
    Testing::fill_uniform(weight, 42);
    rms_norm_quantized(Space(), x, weight, y, TestFixture::eps,
                       fp8_e4m3_per_row(scales, 1e-3f));
    Space().fence();
    const auto host_scales =
        Testing::to_host_doubles_1d(ScaleRows(scales.data(), batch * sequence));
    expect_quantized_reference<Fp8E4M3>(
        Testing::to_host_doubles(x_rows), Testing::to_host_doubles_1d(weight),
        Testing::to_host_doubles(CodeRows(y.data(), batch * sequence, n)),
        TestFixture::eps, 0, 1e-3, &host_scales, "rank 3");
  }
}

TYPED_TEST_P(QuantizedTest, InvalidArguments) {
  // Each bad argument throws, naming it, before anything is written.
  if constexpr (!TestFixture::takes_rows) {
    GTEST_SKIP() << "quantized outputs take no double rows";
  } else {
    using Space = typename TestFixture::Space;
    const std::size_t rows = 6, n = 64;
    typename TypeParam::matrix x("x", rows, n);
    typename TypeParam::vector weight("weight", n);
    typename TestFixture::Codes y("y", rows, n),
        short_y("short y", rows, n - 1);
    typename TestFixture::Scales scales("scales", rows),
        short_scales("short scales", rows - 1);
    Testing::fill_uniform(x, 3);
    Testing::fill_uniform(weight, 4);
    Testing::poison(y, TestFixture::poison_code);
    Testing::poison(scales, -1.0);
    const auto call = [&](auto quantization, const auto& out) {
      return [=] {
        rms_norm_quantized(Space(), x, weight, out, TestFixture::eps,
                           quantization);
      };
    };
    const float bad_scales[] = {0.0f, -1.0f,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                1e-45f};  // 1 / 1e-45 is infinite in float
    for (float bad : bad_scales) {
      expect_invalid(call(fp8_e4m3(bad), y), "rms_norm_quantized", "scale");
      expect_invalid(call(int8(bad), y), "scale");
      expect_invalid(call(fp8_e4m3_per_row(scales, bad), y), "minimum");
      expect_invalid(call(int8_per_row(scales, bad), y), "minimum");
    }
    expect_invalid(call(fp8_e4m3_per_row(short_scales, 1e-3f), y), "scales",
                   "(5)", "(6, 64)");
    expect_invalid(call(fp8_e4m3(1.0f), short_y), "y", "(6, 63)", "(6, 64)");
    expect_invalid(
        [&] {
          add_rms_norm_quantized(Space(), x, x, x, weight, short_y,
                                 TestFixture::eps, int8(1.0f));
        },
        "add_rms_norm_quantized", "y");
    if constexpr (std::is_same_v<typename TestFixture::T, float>) {
      // Scales over x's first row.
      const typename TestFixture::Scales scales_in_x(
          reinterpret_cast<float*>(x.data()), rows);
      expect_invalid(call(fp8_e4m3_per_row(scales_in_x, 1e-3f), y), "scales",
                     "overlaps");
    }
    const auto codes = Testing::to_host_doubles(y);
    const auto kept_scales = Testing::to_host_doubles_1d(scales);
    for (std::size_t i = 0; i < rows; ++i) {
      EXPECT_EQ(kept_scales(i), -1.0);
      for (std::size_t j = 0; j < n; ++j) {
        EXPECT_EQ(codes(i, j), double(TestFixture::poison_code));
      }
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(QuantizedTest, EveryFormatAndScale,
                            RowLengthsAndCounts, AddInPlace,
                            ZeroAndNaNRowsSaturation, Rank3, InvalidArguments);

}  // namespace KokkosRMSNorm::Test

#endif
