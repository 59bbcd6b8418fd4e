// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_QUANTIZE_HPP
#define KOKKOSRMSNORM_IMPL_QUANTIZE_HPP

// The conversions of a quantized output, callable in device code on every
// backend: float to OCP FP8 E4M3 ("fn": bias 7, 3 mantissa bits, no
// infinities, largest finite 448 = 0x7e, NaN 0x7f/0xff, subnormals down to
// 2^-9) and back, and float to int8. The roundings are done on the bits or
// with one exact float addition, so that they do not depend on flushing of
// subnormals nor on host-only std:: math.

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The E4M3 bits nearest to `value`, ties to even, saturating: every finite
// value past 448 and the infinities give +-448, as a scaled activation should
// clip rather than turn into NaN; NaN gives NaN and zero keeps its sign.
KOKKOS_INLINE_FUNCTION std::uint8_t float_to_e4m3_bits(float value) {
  std::uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  const std::uint32_t sign = (bits >> 24) & 0x80u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  // Clamping to 448 first saturates: 448 is the nearest to anything above
  // (a NaN's code is selected at the end, not branched to, so that a GPU
  // kernel converting a Pack keeps its loops unrolled, log 72).
  const std::uint32_t clamped =
      magnitude < 0x43e00000u ? magnitude : 0x43e00000u;
  // From 2^-6 up (float exponent 121), the code is the float rebiased from
  // 127 to 7 with 20 mantissa bits dropped; below, it counts steps of 2^-9:
  // the significand, implicit bit included, shifted right by 141 - exponent,
  // by 25 at most, since all below 2^-10 rounds to zero.
  const std::uint32_t exponent = clamped >> 23;
  const bool normal = exponent >= 121u;
  const std::uint32_t significand =
      normal ? clamped - (120u << 23) : (clamped & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift =
      normal ? 20u : (exponent > 116u ? 141u - exponent : 25u);
  // Ties to even: add just under half a step, plus the lowest kept bit. A
  // carry out of the mantissa steps the exponent up, as rounding should.
  const std::uint32_t code = (significand + (1u << (shift - 1u)) - 1u +
                              ((significand >> shift) & 1u)) >>
                             shift;
  const bool is_nan = magnitude > 0x7f800000u;
  return static_cast<std::uint8_t>(sign | (is_nan ? 0x7fu : code));
}

// The value of E4M3 `bits`, exactly; 0x7f and 0xff give a quiet NaN.
KOKKOS_INLINE_FUNCTION float e4m3_bits_to_float(std::uint8_t bits) {
  const std::uint32_t magnitude = bits & 0x7fu;
  // A normal code is the float's rebiased from 7 to 127 with the mantissa
  // widened; a subnormal one counts steps of 2^-9, a product exact in float.
  std::uint32_t widened = (magnitude + (120u << 3)) << 20;
  if (magnitude < 0x08u) {
    const float subnormal = static_cast<float>(magnitude) * 0x1p-9f;
    memcpy(&widened, &subnormal, sizeof widened);
  } else if (magnitude == 0x7fu) {
    widened = 0x7fc00000u;
  }
  widened |= static_cast<std::uint32_t>(bits & 0x80u) << 24;
  float value;
  memcpy(&value, &widened, sizeof value);
  return value;
}

// The integer nearest to `value`, ties to even, saturated to [-127, 127]
// (symmetric, as int8 quantization scales are, so never -128). NaN gives 0:
// our choice, the same as vLLM's int8 kernels get from their float to int
// conversion.
KOKKOS_INLINE_FUNCTION std::int8_t float_to_int8_saturated(float value) {
  std::uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  // Selects, not branches, so that a GPU kernel converting a Pack keeps its
  // loops unrolled and its values in registers (log 72).
  const float finite = (bits & 0x7fffffffu) > 0x7f800000u ? 0.0f : value;
  const float clamped = finite < -127.0f  ? -127.0f
                        : finite > 127.0f ? 127.0f
                                          : finite;
  // With |clamped| <= 127, clamped + 1.5 * 2^23 lies in [2^23, 2^24), where
  // a float's step is 1: the addition rounds to the nearest integer, ties to
  // even (1.5 * 2^23 is even), and that integer is the sum's low bits.
  const float shifted = clamped + 12582912.0f;
  std::int32_t shifted_bits;
  memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  return static_cast<std::int8_t>(shifted_bits - 0x4b400000);
}

}  // namespace KokkosRMSNorm::Impl

#endif
