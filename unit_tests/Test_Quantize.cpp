// SPDX-License-Identifier: BSD-3-Clause
// The quantized-output conversions (float to FP8 E4M3 and back, float to
// int8) on every float, against references written another way: the nearest
// of the representable values enumerated in double, and std::nearbyint.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <Impl/KokkosRMSNorm_Quantize.hpp>

namespace {

using KokkosRMSNorm::Impl::e4m3_bits_to_float;
using KokkosRMSNorm::Impl::float_to_e4m3_bits;
using KokkosRMSNorm::Impl::float_to_int8_saturated;

float float_of_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The value of the non-negative E4M3 code `code` (0 to 0x7e) from the
// format's definition: 2^(e - 7) * (1 + m / 8), or m * 2^-9 where e is 0.
double e4m3_value(unsigned code) {
  const unsigned e = code >> 3, m = code & 7u;
  return e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, int(e) - 7);
}

// The 127 non-negative finite E4M3 values, increasing with their codes.
std::vector<double> e4m3_levels() {
  std::vector<double> levels;
  for (unsigned code = 0; code <= 0x7eu; ++code) {
    levels.push_back(e4m3_value(code));
  }
  return levels;
}

// Walks the non-negative floats up to infinity in increasing order (the
// order of their bits) and calls check(bits, nearest), where nearest is the
// index in `levels` (increasing) of the level nearest to the float, ties to
// the even index; past the last level, the last. A pointer moves over the
// midpoints, so each float costs a few compares.
template <class Check>
void walk_nearest(const std::vector<double>& levels, Check check) {
  std::vector<double> midpoints;
  for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
    midpoints.push_back((levels[i] + levels[i + 1]) / 2);
  }
  std::size_t i = 0;
  for (std::uint32_t bits = 0; bits <= 0x7f800000u; ++bits) {
    const double value = float_of_bits(bits);
    while (i < midpoints.size() && value > midpoints[i]) {
      ++i;
    }
    const bool tie = i < midpoints.size() && value == midpoints[i];
    check(bits, static_cast<unsigned>(tie && i % 2 == 1 ? i + 1 : i));
  }
}

// Counts the mismatches of a loop too long for an EXPECT each, and keeps the
// first for the message.
struct Mismatches {
  std::uint64_t count = 0;
  std::uint32_t first_bits = 0;
  void add(std::uint32_t bits) {
    if (count++ == 0) {
      first_bits = bits;
    }
  }
};

::testing::AssertionResult none(const Mismatches& mismatches) {
  if (mismatches.count == 0) {
    return ::testing::AssertionSuccess();
  }
  // One Message, since AssertionResult forgets std::hex between insertions.
  ::testing::Message message;
  message << mismatches.count << " mismatches, the first at float bits 0x"
          << std::hex << mismatches.first_bits;
  return ::testing::AssertionFailure() << message;
}

TEST(Quantize, E4M3ExhaustiveNearest) {
  Mismatches mismatches;
  walk_nearest(e4m3_levels(), [&](std::uint32_t bits, unsigned code) {
    if (float_to_e4m3_bits(float_of_bits(bits)) != code) {
      mismatches.add(bits);
    }
    if (float_to_e4m3_bits(float_of_bits(bits | 0x80000000u)) !=
        (code | 0x80u)) {
      mismatches.add(bits | 0x80000000u);
    }
  });
  for (std::uint32_t bits = 0x7f800001u; bits <= 0x7fffffffu; ++bits) {
    if (float_to_e4m3_bits(float_of_bits(bits)) != 0x7fu) {
      mismatches.add(bits);
    }
    if (float_to_e4m3_bits(float_of_bits(bits | 0x80000000u)) != 0xffu) {
      mismatches.add(bits | 0x80000000u);
    }
  }
  EXPECT_TRUE(none(mismatches));
}

// std::nearbyint in double under the default rounding mode (to nearest,
// ties to even), clamped to [-127, 127]; NaN gives 0.
int int8_reference(float value) {
  if (std::isnan(value)) {
    return 0;
  }
  const double nearest = std::nearbyint(static_cast<double>(value));
  return nearest > 127 ? 127 : nearest < -127 ? -127 : int(nearest);
}

TEST(Quantize, Int8ExhaustiveNearbyint) {
  Mismatches mismatches;
  std::uint32_t bits = 0;
  do {
    const float value = float_of_bits(bits);
    if (float_to_int8_saturated(value) != int8_reference(value)) {
      mismatches.add(bits);
    }
  } while (++bits != 0);
  EXPECT_TRUE(none(mismatches));
}

TEST(Quantize, E4M3DecodeRoundTrips) {
  const std::vector<double> levels = e4m3_levels();
  for (unsigned code = 0; code <= 0xffu; ++code) {
    const auto bits = static_cast<std::uint8_t>(code);
    const float value = e4m3_bits_to_float(bits);
    if ((code & 0x7fu) == 0x7fu) {
      EXPECT_TRUE(std::isnan(value)) << "code 0x" << std::hex << code;
      EXPECT_EQ(unsigned{float_to_e4m3_bits(value)}, code)
          << "code 0x" << std::hex << code;
      continue;
    }
    const double level = levels[code & 0x7fu];
    EXPECT_EQ(value, code & 0x80u ? -level : level)
        << "code 0x" << std::hex << code;
    EXPECT_EQ(std::signbit(value), (code & 0x80u) != 0)
        << "code 0x" << std::hex << code;
    EXPECT_EQ(unsigned{float_to_e4m3_bits(value)}, code)
        << "code 0x" << std::hex << code;
  }
}

TEST(Quantize, E4M3Edges) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float min_subnormal = std::ldexp(1.0f, -9);
  struct Case {
    float value;
    unsigned code;
  };
  const Case cases[] = {
      {448.0f, 0x7eu},
      {-448.0f, 0xfeu},
      // The tie between 448 and the 480 there is not: to 448.
      {464.0f, 0x7eu},
      {std::nextafter(464.0f, inf), 0x7eu},
      {1e30f, 0x7eu},
      {-1e30f, 0xfeu},
      {std::numeric_limits<float>::max(), 0x7eu},
      {inf, 0x7eu},
      {-inf, 0xfeu},
      {nan, 0x7fu},
      {std::copysign(nan, -1.0f), 0xffu},
      {0.0f, 0x00u},
      {-0.0f, 0x80u},
      {min_subnormal, 0x01u},
      {-min_subnormal, 0x81u},
      // Half the smallest subnormal: a tie, to the even 0.
      {min_subnormal / 2, 0x00u},
      {-min_subnormal / 2, 0x80u},
      {std::nextafter(min_subnormal / 2, inf), 0x01u},
      {0.75f * min_subnormal, 0x01u},
      {1.5f * min_subnormal, 0x02u},
      // The largest subnormal, and the tie past it, to the smallest normal.
      {7 * min_subnormal, 0x07u},
      {7.5f * min_subnormal, 0x08u},
      {std::ldexp(1.0f, -6), 0x08u},
      {std::numeric_limits<float>::denorm_min(), 0x00u},
      {-std::numeric_limits<float>::denorm_min(), 0x80u},
      {0.5f, 0x30u},
      {1.0f, 0x38u},
      // Ties between 1 and 1.125 (to 1), 1.125 and 1.25 (to 1.25).
      {1.0625f, 0x38u},
      {1.1875f, 0x3au},
      {std::nextafter(1.0625f, inf), 0x39u},
      {240.0f, 0x77u},
      {256.0f, 0x78u},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(unsigned{float_to_e4m3_bits(c.value)}, c.code)
        << "value " << c.value;
  }
  EXPECT_EQ(e4m3_bits_to_float(0x7eu), 448.0f);
  EXPECT_EQ(e4m3_bits_to_float(0xfeu), -448.0f);
  EXPECT_EQ(e4m3_bits_to_float(0x01u), min_subnormal);
  EXPECT_EQ(e4m3_bits_to_float(0x08u), std::ldexp(1.0f, -6));
  EXPECT_EQ(e4m3_bits_to_float(0x38u), 1.0f);
  EXPECT_TRUE(std::signbit(e4m3_bits_to_float(0x80u)));
  EXPECT_EQ(e4m3_bits_to_float(0x80u), 0.0f);
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0x7fu)));
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0xffu)));
}

TEST(Quantize, Int8Edges) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    float value;
    int expected;
  };
  const Case cases[] = {
      // 127.5 rounds to 128, then saturates; never -128.
      {127.5f, 127},
      {-127.5f, -127},
      {127.0f, 127},
      {-127.0f, -127},
      {128.0f, 127},
      {-128.0f, -127},
      {126.5f, 126},
      {-126.5f, -126},
      {std::nextafter(126.5f, inf), 127},
      {2.5f, 2},
      {3.5f, 4},
      {-2.5f, -2},
      {-3.5f, -4},
      {0.5f, 0},
      {-0.5f, 0},
      {1.5f, 2},
      // Where adding 0.5 and truncating gives 1.
      {std::nextafter(0.5f, 0.0f), 0},
      {std::nextafter(0.5f, inf), 1},
      {0.0f, 0},
      {-0.0f, 0},
      {std::numeric_limits<float>::denorm_min(), 0},
      {8388609.0f, 127},
      {1e30f, 127},
      {-1e30f, -127},
      {inf, 127},
      {-inf, -127},
      {nan, 0},
      {std::copysign(nan, -1.0f), 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(int{float_to_int8_saturated(c.value)}, c.expected)
        << "value " << c.value;
  }
}

}  // namespace
