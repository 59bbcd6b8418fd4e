// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_QUANTIZATION_HPP
#define KOKKOSRMSNORM_QUANTIZATION_HPP

namespace KokkosRMSNorm {

/// The formats of a quantized output, one byte a value in a View of
/// std::uint8_t or std::int8_t: OCP FP8 E4M3 "fn" as its bit pattern (largest
/// 448, no infinities) and symmetric int8 (largest 127).
struct Fp8E4M3 {
  static constexpr float largest = 448.0f;
};
struct Int8 {
  static constexpr float largest = 127.0f;
};

/// The scale argument of a quantization with one scale for every row.
struct OneScale {};

/// How rms_norm_quantized stores y: the code of y(i, j) / scale(i), rounded
/// to nearest (ties to even) and saturated to +-Format::largest, where
/// scale(i) is `scale` for every row (ScaleView OneScale), or each row's
/// own, max(max_j |y(i, j)| / Format::largest, minimum), written to
/// `scales` (one float a row).
template <class Format, class ScaleView>
struct Quantization {
  ScaleView scales;
  float scale;
  float minimum;
};

/// FP8 E4M3 with one static scale, as vLLM's rms_norm_static_fp8_quant.
inline Quantization<Fp8E4M3, OneScale> fp8_e4m3(float scale) {
  return {OneScale(), scale, 0.0f};
}

/// FP8 E4M3 with a scale a row, as vLLM's rms_norm_dynamic_per_token_quant;
/// `minimum` (> 0) bounds the scales from below, so that a row of zeros
/// gets a usable one.
template <class ScaleView>
Quantization<Fp8E4M3, ScaleView> fp8_e4m3_per_row(const ScaleView& scales,
                                                  float minimum) {
  return {scales, 0.0f, minimum};
}

/// int8 with one static scale, and with a scale a row.
inline Quantization<Int8, OneScale> int8(float scale) {
  return {OneScale(), scale, 0.0f};
}

template <class ScaleView>
Quantization<Int8, ScaleView> int8_per_row(const ScaleView& scales,
                                           float minimum) {
  return {scales, 0.0f, minimum};
}

}  // namespace KokkosRMSNorm

#endif
