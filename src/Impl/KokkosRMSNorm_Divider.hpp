// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_DIVIDER_HPP
#define KOKKOSRMSNORM_IMPL_DIVIDER_HPP

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

// Division of indices by a divisor fixed before the launch, as a multiply
// and a shift (Granlund and Montgomery, "Division by invariant integers
// using multiplication", 1994, fig. 4.1): a GPU has no integer divide, and
// its 64-bit division is a subroutine of some 70 instructions, which rows of
// heads paid for each row argument of each row (log 66).

namespace KokkosRMSNorm::Impl {

class Divider {
 public:
  Divider() = default;

  explicit Divider(std::size_t divisor) : divisor_(divisor) {
    if (divisor == 0 || divisor > max_fast_) {
      return;  // every quotient divides (largest_fast_dividend_ is 0)
    }
    while ((std::uint64_t(1) << shift_) < divisor) {
      ++shift_;
    }
    // m = floor(2^32 (2^l - d) / d) + 1 < 2^32, where 2^(l-1) < d <= 2^l.
    multiplier_ = static_cast<std::uint32_t>(
        (std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift_) - divisor) /
            divisor +
        1);
    largest_fast_dividend_ = max_fast_;
  }

  KOKKOS_INLINE_FUNCTION std::size_t divisor() const { return divisor_; }

  // n / divisor: for n < 2^32, (n + (n m) / 2^32) / 2^l, exact there; a
  // plain division beyond (more than 2^32 rows).
  KOKKOS_INLINE_FUNCTION std::size_t quotient(std::size_t n) const {
    if (n > largest_fast_dividend_) {
      return n / divisor_;
    }
    const std::uint64_t high = (std::uint64_t(n) * multiplier_) >> 32;
    return static_cast<std::size_t>((high + n) >> shift_);
  }

 private:
  static constexpr std::uint64_t max_fast_ = 0xffffffffu;

  std::size_t divisor_ = 1;
  std::uint64_t largest_fast_dividend_ = 0;
  std::uint32_t multiplier_ = 0;
  int shift_ = 0;
};

}  // namespace KokkosRMSNorm::Impl

#endif
