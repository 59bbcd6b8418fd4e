// SPDX-License-Identifier: BSD-3-Clause
// The host backend's rounding of float to bfloat16 on the bits, against the
// nearest bfloat16 found in double precision, and against Kokkos's own
// conversion where bhalf_t is 16 bits wide.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <Impl/Backends/Host/KokkosRMSNorm_BFloat16Rounding.hpp>
#include <Impl/KokkosRMSNorm_Compat.hpp>
#include <Kokkos_Core.hpp>

namespace {

float float_of_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The value of bfloat16 `bits`, where 0x7f80 past the largest finite one
// counts as 2^128, the next step of an unbounded exponent: what IEEE rounding
// compares against before it overflows to infinity.
double bfloat16_value(std::uint32_t bits) {
  if ((bits & 0x7fffu) == 0x7f80u) {
    return std::copysign(std::ldexp(1.0, 128), (bits & 0x8000u) ? -1.0 : 1.0);
  }
  return float_of_bits(bits << 16);
}

// The nearest bfloat16 to `value`, not NaN, ties to the even one: of the
// bfloat16 toward zero (the top 16 bits) and the next one away from zero.
std::uint16_t nearest_in_double(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint32_t toward_zero = bits >> 16, away = toward_zero + 1;
  if (std::isinf(value)) {
    return static_cast<std::uint16_t>(toward_zero);
  }
  const double below = std::abs(value - bfloat16_value(toward_zero));
  const double above = std::abs(bfloat16_value(away) - value);
  if (below < above || (below == above && toward_zero % 2 == 0)) {
    return static_cast<std::uint16_t>(toward_zero);
  }
  return static_cast<std::uint16_t>(away);
}

// Every 4099th bit pattern (all exponents, both signs, every low-bit
// residue class mod 4099) and the edges: zeros, subnormals, ties to even
// and to odd, the largest float, the infinities.
std::vector<std::uint32_t> sampled_bits() {
  std::vector<std::uint32_t> bits;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
    bits.push_back(static_cast<std::uint32_t>(u));
  }
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t magnitude :
         {0u, 1u, 0x8000u, 0x18000u, 0x3f808000u, 0x3f818000u, 0x3f80ffffu,
          0x7f7f7fffu, 0x7f7f8000u, 0x7f7fffffu, 0x7f800000u}) {
      bits.push_back(sign | magnitude);
    }
  }
  return bits;
}

TEST(BFloat16Rounding, NearestTiesToEven) {
  std::size_t checked = 0;
  for (const std::uint32_t bits : sampled_bits()) {
    const float value = float_of_bits(bits);
    if (std::isnan(value)) {
      EXPECT_EQ(KokkosRMSNorm::Impl::bfloat16_bits_nearest(value), 0x7fffu);
      continue;
    }
    ASSERT_EQ(KokkosRMSNorm::Impl::bfloat16_bits_nearest(value),
              nearest_in_double(value))
        << "float bits 0x" << std::hex << bits;
    ++checked;
  }
  EXPECT_GT(checked, 1000000u);
}

#ifdef KOKKOSRMSNORM_HAS_BHALF_T
TEST(BFloat16Rounding, AsKokkosConverts) {
  using bhalf_t = Kokkos::Experimental::bhalf_t;
  if constexpr (sizeof(bhalf_t) != sizeof(std::uint16_t)) {
    GTEST_SKIP() << "bhalf_t is not 16 bits wide in this Kokkos";
  } else {
    for (const std::uint32_t bits : sampled_bits()) {
      const float value = float_of_bits(bits);
      const bhalf_t converted = static_cast<bhalf_t>(value);
      std::uint16_t kokkos_bits;
      std::memcpy(&kokkos_bits, static_cast<const void*>(&converted),
                  sizeof kokkos_bits);
      if (!std::isnan(value)) {
        ASSERT_EQ(KokkosRMSNorm::Impl::bfloat16_bits_nearest(value),
                  kokkos_bits)
            << "float bits 0x" << std::hex << bits;
      }
    }
  }
}
#endif

}  // namespace
