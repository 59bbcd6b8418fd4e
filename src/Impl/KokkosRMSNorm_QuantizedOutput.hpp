// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_QUANTIZEDOUTPUT_HPP
#define KOKKOSRMSNORM_IMPL_QUANTIZEDOUTPUT_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Quantization.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Quantize.hpp"
#include "KokkosRMSNorm_Rows.hpp"
#include "KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm::Impl {

// How a RowMath stores y quantized in Format: divided by one scale for all
// rows (ScaleValues None: `multiplier` is 1 / the scale), or by a scale a
// row, scale(i) = max(max_j |y(i, j)| / Format::largest, minimum), stored to
// `scales` (a rank-1 View of rows).
template <class Format, class ScaleValues>
struct QuantizedOutput {
  using format = Format;
  static constexpr bool scales_each_row = !is_none_v<ScaleValues>;

  ScaleValues scales;
  float multiplier;  // 1 / the scale, where one scale serves every row
  float minimum;     // the least scale of a row, where each has its own

  // What a row's y is multiplied by before it is converted: 1 / its scale,
  // the row's from `largest`, its largest |y|, where each row has one.
  KOKKOS_INLINE_FUNCTION float row_multiplier(
      [[maybe_unused]] float largest) const {
    if constexpr (scales_each_row) {
      return 1.0f / row_scale(largest);
    } else {
      return multiplier;
    }
  }

  KOKKOS_INLINE_FUNCTION void store_row_scale(
      [[maybe_unused]] std::size_t row, [[maybe_unused]] float largest) const {
    if constexpr (scales_each_row) {
      scales(row) = row_scale(largest);
    }
  }

  // The codes in Format of a Pack's `values`, y already divided by its
  // scale, converted as the backend converts (in hardware, where it can).
  template <class Backend, int Width, class Code>
  KOKKOS_FORCEINLINE_FUNCTION static void codes_of(const float (&values)[Width],
                                                   Code (&codes)[Width]) {
    if constexpr (std::is_same_v<Format, Fp8E4M3>) {
      std::uint8_t bits[Width];
      Backend::e4m3_codes(values, bits);
      for (int k = 0; k < Width; ++k) {
        codes[k] = static_cast<Code>(bits[k]);
      }
    } else {
      for (int k = 0; k < Width; ++k) {
        codes[k] = static_cast<Code>(float_to_int8_saturated(values[k]));
      }
    }
  }

  KOKKOS_INLINE_FUNCTION float row_scale(float largest) const {
    const float scale = largest / Format::largest;
    return scale > minimum ? scale : minimum;  // minimum if largest is NaN
  }
};

template <class Quantization>
inline constexpr bool scales_each_row_v = false;
template <class Format, class ScaleValues>
inline constexpr bool scales_each_row_v<QuantizedOutput<Format, ScaleValues>> =
    !is_none_v<ScaleValues>;

// A scale is finite, positive and has a finite reciprocal in float.
inline void require_valid_scale(const char* function, const char* name,
                                float scale) {
  if (!(scale > 0.0f) || !std::isfinite(scale) ||
      !std::isfinite(1.0f / scale)) {
    std::ostringstream out;
    out << name
        << " must be a finite, positive float with a finite reciprocal, got "
        << scale;
    throw_invalid(function, out.str());
  }
}

// A quantization for rows of rank 4 as one for their merged tokens (see
// tokens_merged in Rows.hpp): its scales, where a row has one, merged alike.
inline None tokens_merged(const char*, None, RowOrder) {
  return {};
}

template <class Format, class ScaleView>
auto tokens_merged(const char* function,
                   const Quantization<Format, ScaleView>& quantization,
                   RowOrder order) {
  if constexpr (std::is_same_v<ScaleView, OneScale>) {
    return quantization;
  } else {
    const auto scales =
        tokens_merged(function, "scales", quantization.scales, order);
    return Quantization<Format, decltype(scales)>{scales, quantization.scale,
                                                  quantization.minimum};
  }
}

template <class XView, class RowValues>
None quantized_output(const char*, None, const XView&, const RowValues&) {
  return {};
}

// The QuantizedOutput of `quantization` for the rows of x, its arguments
// checked: a scale, or a minimum and a View of one float a row of x, which
// row_values(name, view) checks and maps to the rows' values.
template <class Format, class ScaleView, class XView, class RowValues>
auto quantized_output(const char* function,
                      const Quantization<Format, ScaleView>& quantization,
                      const XView& x, const RowValues& row_values) {
  if constexpr (std::is_same_v<ScaleView, OneScale>) {
    require_valid_scale(function, "scale", quantization.scale);
    return QuantizedOutput<Format, None>{None(), 1.0f / quantization.scale,
                                         0.0f};
  } else {
    require_valid_scale(function, "minimum", quantization.minimum);
    require_one_per_row(function, "scales", quantization.scales, x);
    const auto scales = row_values("scales", quantization.scales);
    return QuantizedOutput<Format, decltype(scales)>{scales, 0.0f,
                                                     quantization.minimum};
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
