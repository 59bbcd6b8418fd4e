// SPDX-License-Identifier: BSD-3-Clause
// Division by a divisor fixed in advance (Impl::Divider, the row index of
// rows of heads) against the compiler's division: every dividend below 2^32
// is exact only if the multiplier and shift are, so the test takes the
// dividends where a rounding error would first show (around each multiple of
// the divisor and at the ends of the fast range) and seeded random ones.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <Impl/KokkosRMSNorm_Divider.hpp>

namespace {

using KokkosRMSNorm::Impl::Divider;

std::vector<std::size_t> divisors() {
  std::vector<std::size_t> values;
  for (std::size_t d = 1; d <= 1100; ++d) {
    values.push_back(d);
  }
  for (int bit = 11; bit <= 40; ++bit) {
    const std::size_t power = std::size_t(1) << bit;
    values.insert(values.end(), {power - 1, power, power + 1});
  }
  values.insert(values.end(), {641, 6700417, 3000000019u, 0xfffffffbu});
  return values;
}

void expect_quotients(const Divider& divider, std::size_t d,
                      std::mt19937_64& random) {
  std::vector<std::size_t> dividends = {0,           1,           d - 1,
                                        d,           d + 1,       0x7fffffffu,
                                        0x80000000u, 0xfffffffeu, 0xffffffffu,
                                        0x100000000, 0x1000000001};
  // Each side of the last multiples of d below 2^32, and of a few early ones.
  const std::uint64_t last = 0xffffffffu / d;
  for (std::uint64_t k : {std::uint64_t(2), std::uint64_t(3), last - 1, last}) {
    if (k > 0 && k * d <= 0xffffffffu) {
      dividends.insert(dividends.end(), {k * d - 1, k * d, k * d + 1});
    }
  }
  for (int i = 0; i < 64; ++i) {
    dividends.push_back(random() >> 32);
    dividends.push_back(random() >> 20);
  }
  for (std::size_t n : dividends) {
    ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
  }
}

TEST(Divider, MatchesDivisionOnEveryDivisorTried) {
  std::mt19937_64 random(20261202);
  for (std::size_t d : divisors()) {
    const Divider divider(d);
    ASSERT_EQ(divider.divisor(), d);
    expect_quotients(divider, d, random);
  }
}

TEST(Divider, EveryDividendBelow2To18ForSmallDivisors) {
  for (std::size_t d = 1; d <= 64; ++d) {
    const Divider divider(d);
    for (std::size_t n = 0; n < (std::size_t(1) << 18); ++n) {
      ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
    }
  }
}

}  // namespace
