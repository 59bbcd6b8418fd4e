// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_RANDOMIZED_HPP
#define KOKKOSRMSNORM_TEST_RANDOMIZED_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "Test_RMSNorm.hpp"

namespace KokkosRMSNorm::Test {

// Generated cases, each checked against the double reference like the
// hand-picked ones: row lengths from 1 to 70,000 weighted to the edges
// (1, the vector width +-1, powers of two +-1), up to 4,096 rows with about
// 2^20 elements at most, rows strided wider than N, views starting at odd
// element offsets (32-bit values and wider in Packs shifted to the rows,
// ShiftedPackRows), eps and magnitudes varied.
//
// 2,500 cases per dtype x layout, so 10,000 per backend; environment:
//   KOKKOSRMSNORM_RANDOM_CASES  cases per dtype x layout
//   KOKKOSRMSNORM_RANDOM_SEED   seed of the first case (case i uses seed + i)
// A failure prints its case's seed: rerun with that seed and 1 case.
template <class Case>
class RandomizedTest : public RMSNormTest<Case> {
 protected:
  static std::uint64_t from_environment(const char* name,
                                        std::uint64_t fallback) {
    const char* value = std::getenv(name);
    return value ? std::stoull(value) : fallback;
  }

  static std::size_t row_length(std::mt19937_64& random) {
    constexpr int width = Impl::vector_width_v<typename Case::value_type>;
    std::uniform_real_distribution<double> unit(0, 1);
    if (unit(random) < 0.5) {
      // An edge: 1, the vector width +-1, or a power of two +-1.
      const int power = std::uniform_int_distribution<int>(0, 16)(random);
      const std::size_t base =
          unit(random) < 0.2 ? width : std::size_t(1) << power;
      const int offset = std::uniform_int_distribution<int>(-1, 1)(random);
      return std::max<std::size_t>(1, base + offset);
    }
    return static_cast<std::size_t>(std::exp(unit(random) * std::log(70000.0)));
  }

  void run_case(std::uint64_t seed) {
    using T = typename Case::value_type;
    using Space = typename Case::execution_space;
    using Matrix = Kokkos::View<T**, typename Case::layout, Space>;
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    const std::size_t n = row_length(random);
    const std::size_t max_rows =
        std::clamp<std::size_t>((std::size_t(1) << 20) / n, 1, 4096);
    const auto rows = static_cast<std::size_t>(
        std::exp(unit(random) * std::log(max_rows + 1.0)) - 1);
    // Padding around the view in its contiguous dimension: an odd offset
    // of the first element, a pitch wider than the extent, or neither.
    const double kind = unit(random);
    const std::size_t offset = kind < 0.33 ? 1 : 0;
    const std::size_t padding =
        offset + (kind > 0.66
                      ? std::uniform_int_distribution<std::size_t>(1, 7)(random)
                      : 0);
    const std::array<double, 4> eps_values = {0, 1e-6, 1e-5, 1e-2};
    const double eps =
        eps_values[std::uniform_int_distribution<int>(0, 3)(random)];
    const double scale = std::exp(std::uniform_real_distribution<double>(
        std::log(1e-3), std::log(1e3))(random));
    SCOPED_TRACE(
        "reproduce with KOKKOSRMSNORM_RANDOM_SEED=" + std::to_string(seed) +
        " KOKKOSRMSNORM_RANDOM_CASES=1 (rows=" + std::to_string(rows) +
        " N=" + std::to_string(n) + " offset=" + std::to_string(offset) +
        " padding=" + std::to_string(padding) + ")");

    constexpr bool right =
        std::is_same_v<typename Case::layout, Kokkos::LayoutRight>;
    const auto padded = [&](const std::string& label) {
      return right ? Matrix(label, rows, n + padding)
                   : Matrix(label, rows + padding, n);
    };
    const auto inner = [&](const Matrix& all) {
      const auto rows_range =
          Kokkos::make_pair(right ? 0 : offset, (right ? 0 : offset) + rows);
      const auto columns =
          Kokkos::make_pair(right ? offset : 0, (right ? offset : 0) + n);
      return Kokkos::subview(all, rows_range, columns);
    };
    const Matrix x_all = padded("x"), y_all = padded("y");
    const Kokkos::View<T*, Space> weight_all("weight", n + offset);
    this->expect_matches_reference(
        inner(x_all),
        Kokkos::subview(weight_all, Kokkos::make_pair(offset, offset + n)),
        inner(y_all), eps, scale, seed);
  }
};

TYPED_TEST_SUITE_P(RandomizedTest);

TYPED_TEST_P(RandomizedTest, GeneratedCases) {
  const std::uint64_t cases =
      this->from_environment("KOKKOSRMSNORM_RANDOM_CASES", 2500);
  const std::uint64_t first =
      this->from_environment("KOKKOSRMSNORM_RANDOM_SEED", 20261130);
  for (std::uint64_t i = 0; i < cases && !this->HasFailure(); ++i) {
    this->run_case(first + i);
  }
}

REGISTER_TYPED_TEST_SUITE_P(RandomizedTest, GeneratedCases);

}  // namespace KokkosRMSNorm::Test

#endif
