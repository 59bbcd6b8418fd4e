// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_HOST_BFLOAT16ROUNDING_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_HOST_BFLOAT16ROUNDING_HPP

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The bits of the bfloat16 nearest to `value` (ties to even; every NaN to
// the quiet NaN 0x7fff, as CUDA's conversion gives), computed on the bits
// without a branch, so that a compiler vectorizes a loop of them.
KOKKOS_FORCEINLINE_FUNCTION std::uint16_t bfloat16_bits_nearest(float value) {
  std::uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  // Only NaN is unequal to itself: one vector compare (log 69).
  const bool is_nan = value != value;  // NOLINT(misc-redundant-expression)
  return static_cast<std::uint16_t>(is_nan ? 0x7fffu : rounded);
}

}  // namespace KokkosRMSNorm::Impl

#endif
