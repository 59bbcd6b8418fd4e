// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_QUANTIZEDREFERENCE_HPP
#define KOKKOSRMSNORM_TEST_QUANTIZEDREFERENCE_HPP

// The double reference of a quantized RMSNorm and the comparison of a
// kernel's codes with it, written from the formats' definitions, apart from
// the kernels' conversions (Impl/KokkosRMSNorm_Quantize.hpp).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Reference.hpp>

#include "Test_Cases.hpp"

namespace KokkosRMSNorm::Test {

// The value of the non-negative E4M3 code `code` (0 to 0x7e): 2^(e - 7) *
// (1 + m / 8), or m * 2^-9 where e is 0.
inline double e4m3_level(unsigned code) {
  const unsigned e = code >> 3, m = code & 7u;
  return e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, int(e) - 7);
}

// A format's codes as the reference sees them: the code nearest to a double
// (ties to even, saturating; NaN to NaN, or 0 for int8), a code's magnitude
// step (codes of one sign in increasing order) and the value of a step.
template <class Format>
struct ReferenceCodes;

template <>
struct ReferenceCodes<Fp8E4M3> {
  static constexpr double largest = 448;
  static int nearest(double value) {
    const int sign = std::signbit(value) ? 0x80 : 0;
    if (std::isnan(value)) {
      return sign | 0x7f;
    }
    unsigned below = 0;  // the largest level at most |value|
    while (below < 0x7e && e4m3_level(below + 1) <= std::fabs(value)) {
      ++below;
    }
    if (below == 0x7e) {
      return sign | 0x7e;
    }
    const double low = e4m3_level(below), high = e4m3_level(below + 1);
    const double middle = (low + high) / 2;
    const double magnitude = std::fabs(value);
    const bool up = magnitude > middle || (magnitude == middle && below % 2);
    return sign | int(up ? below + 1 : below);
  }
  // Signed magnitude steps: the code's index among the levels, negated for
  // negative codes (so -0 and +0 are both 0).
  static int step(int code) {
    const int magnitude = code & 0x7f;
    return code & 0x80 ? -magnitude : magnitude;
  }
  static double value_of_step(int step) {
    return step < 0 ? -e4m3_level(unsigned(-step)) : e4m3_level(unsigned(step));
  }
  static bool is_nan(int code) { return (code & 0x7f) == 0x7f; }
  static int code_of_stored(double stored) {  // uint8_t or int8_t storage
    return int(stored) & 0xff;
  }
};

template <>
struct ReferenceCodes<Int8> {
  static constexpr double largest = 127;
  static int nearest(double value) {
    if (std::isnan(value)) {
      return 0;
    }
    const double rounded = std::nearbyint(value);  // ties to even
    return rounded > 127 ? 127 : rounded < -127 ? -127 : int(rounded);
  }
  static int step(int code) { return code; }
  static double value_of_step(int step) { return step; }
  static bool is_nan(int) { return false; }
  static int code_of_stored(double stored) {  // uint8_t or int8_t storage
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(int(stored)));
  }
};

// The codes of y = rms_norm(h) * factors / scale(i) compared with the
// reference, h the rows normalized (x, or the sum a call stored), scale(i)
// the static `scale` or, where `scales` is given, each row's reference
// scale max(max_j |y(i, j)| / largest, minimum), which the kernel's must
// equal within the float tolerance. A code may differ from the reference
// only by one step, where the double value lies within rtol of the boundary
// between the two codes: the float computation landed on the other side of
// a rounding boundary. Those are counted; the count must stay under 1% of
// the codes (about 2 * rtol / the relative step between codes is the
// largest share possible, and the float error is far below rtol).
template <class Format>
void expect_quantized_reference(const Testing::HostMatrix& h,
                                const Testing::HostVector& factors,
                                const Testing::HostMatrix& codes, double eps,
                                double scale, double minimum,
                                const Testing::HostVector* scales,
                                const std::string& what) {
  using Codes = ReferenceCodes<Format>;
  const double rtol = Tolerance<float>::rtol;
  const Testing::HostMatrix y = Testing::reference_rms_norm(h, factors, eps);
  std::size_t wrong = 0, boundary = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < y.extent(0); ++i) {
    double row_scale = scale;
    if (scales) {
      double largest = 0;
      for (std::size_t j = 0; j < y.extent(1); ++j) {
        if (!std::isnan(y(i, j))) {
          largest = std::fmax(largest, std::fabs(y(i, j)));
        }
      }
      row_scale = std::fmax(largest / Codes::largest, minimum);
      const double actual = (*scales)(i);
      if (!(std::fabs(actual - row_scale) <= rtol * row_scale)) {
        ADD_FAILURE() << what << ": row " << i << " scale " << actual
                      << ", reference " << row_scale;
      }
    }
    for (std::size_t j = 0; j < y.extent(1); ++j) {
      const double value = y(i, j) / row_scale;
      const int expected = Codes::nearest(value);
      const int actual = Codes::code_of_stored(codes(i, j));
      if (actual == expected ||
          (Codes::is_nan(actual) && Codes::is_nan(expected))) {
        continue;  // a NaN's sign is the arithmetic's
      }
      const int a = Codes::step(actual), e = Codes::step(expected);
      const double middle =
          (Codes::value_of_step(a) + Codes::value_of_step(e)) / 2;
      if (!Codes::is_nan(actual) && !Codes::is_nan(expected) &&
          std::abs(a - e) == 1 &&
          std::fabs(value - middle) <= rtol * std::fabs(value)) {
        ++boundary;
        continue;
      }
      if (wrong++ == 0) {
        first << "(" << i << ", " << j << "): code " << actual << ", reference "
              << expected << " of " << value;
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " wrong codes, first "
                       << first.str();
  EXPECT_LE(boundary, y.size() / 100)
      << what << ": " << boundary << " codes on the other side of a boundary";
}

}  // namespace KokkosRMSNorm::Test

#endif
