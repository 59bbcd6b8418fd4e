// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWMATH_HPP
#define KOKKOSRMSNORM_IMPL_ROWMATH_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"
#include "KokkosRMSNorm_HeadRows.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_QuantizedOutput.hpp"
#include "KokkosRMSNorm_ShiftedRows.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"

namespace KokkosRMSNorm::Impl {

// The arithmetic on rows of Packs, apart from how lanes share the rows:
// h = x (or x + residual, rounded to x's type and stored to sum), then
// y = h * rstd * weight factor, rstd = 1 / sqrt(sum(h^2) / N + eps), rstd
// stored to rstd_out; y is stored in x's type, or quantized (Quantization
// a QuantizedOutput). Absent operands are None. The rows are rows of
// aligned Packs (a View, or HeadRows), or ShiftedPackRows where they do not
// start on one. StaticPacks, where not 0, is the Packs a row, fixed by the
// type of the user's View (View<T*[4096]>), which the kernels then take as
// a constant.
template <class XRows, class ResidualRows, class SumRows, class Weight,
          class YRows, class RstdValues, class Quantization = None,
          std::size_t StaticPacks = 0>
struct RowMath {
  using pack = typename XRows::non_const_value_type;
  using value_type = typename pack::value_type;
  using accumulation_type = accumulation_type_t<value_type>;
  static constexpr int width = pack::width;
  static constexpr bool adds_residual = !is_none_v<ResidualRows>;
  static constexpr bool quantizes = !is_none_v<Quantization>;
  // Whether y's scale depends on the row's largest |y|: a reduction over
  // the whole row before any y is stored, which teams splitting the row do
  // not make.
  static constexpr bool scales_each_row = scales_each_row_v<Quantization>;
  static constexpr bool rows_start_on_packs = !is_shifted_pack_rows_v<XRows>;
  // Whether load(row, j) is x(row, j) as stored, which a lane may then copy
  // to team scratch without computing anything.
  static constexpr bool loads_x_as_stored =
      !adds_residual && rows_start_on_packs;
  // Whether Pack j of the weight scales Pack j of every row alike, so that
  // a lane holding Pack j of several rows loads it once for them all.
  static constexpr bool rows_share_weight_packs = rows_start_on_packs;
  static constexpr std::size_t static_packs = StaticPacks;

  XRows x;
  ResidualRows residual;
  SumRows sum;
  Weight weight;
  YRows y;
  RstdValues rstd_out;
  accumulation_type eps;
  accumulation_type inverse_n;  // 1 / elements per row
  Quantization quantization;

  KOKKOS_INLINE_FUNCTION std::size_t rows() const { return x.extent(0); }
  KOKKOS_INLINE_FUNCTION std::size_t packs_per_row() const {
    if constexpr (StaticPacks > 0) {
      return StaticPacks;
    } else {
      return x.extent(1);
    }
  }

  // Pack j of the row's h, which a lane reads first, through the
  // backend's load_evicting_last.
  template <class Backend>
  KOKKOS_INLINE_FUNCTION pack load(std::size_t row, int j) const {
    if constexpr (adds_residual) {
      const pack h = add<Backend>(load_pack<Backend>(x, row, j),
                                  load_pack<Backend>(residual, row, j));
      write_pack(sum, row, j, h);
      return h;
    } else {
      return load_pack<Backend>(x, row, j);
    }
  }

  // Pack j of the row's h, computed without storing it: what a team summing
  // another team's chunk reads (see RowSplit).
  template <class Backend>
  KOKKOS_INLINE_FUNCTION pack peek(std::size_t row, int j) const {
    if constexpr (adds_residual) {
      return add<Backend>(read_pack(x, row, j), read_pack(residual, row, j));
    } else {
      return read_pack(x, row, j);
    }
  }

  // a + b in the accumulation type, rounded to the value type.
  template <class Backend>
  KOKKOS_INLINE_FUNCTION static pack add(const pack& a, const pack& b) {
    pack h;
    for (int k = 0; k < width; ++k) {
      h.lane[k] = Backend::template round_to<value_type>(
          Backend::template widened<accumulation_type>(a, k) +
          Backend::template widened<accumulation_type>(b, k));
    }
    return h;
  }

  // The same Pack read again by the lane that loaded it, on a second sweep.
  KOKKOS_INLINE_FUNCTION pack reload(std::size_t row, int j) const {
    if constexpr (adds_residual) {
      return read_pack(sum, row, j);
    } else {
      return read_pack(x, row, j);
    }
  }

  template <class Backend>
  KOKKOS_INLINE_FUNCTION static void add_squares(
      const pack& v, accumulation_type& sum_of_squares) {
    for (int k = 0; k < width; ++k) {
      const auto value = Backend::template widened<accumulation_type>(v, k);
      sum_of_squares += value * value;
    }
  }

  KOKKOS_INLINE_FUNCTION accumulation_type
  rstd(accumulation_type sum_of_squares) const {
    return rsqrt(sum_of_squares * inverse_n + eps);
  }

  KOKKOS_INLINE_FUNCTION void store_rstd(std::size_t row,
                                         accumulation_type rstd) const {
    if constexpr (!is_none_v<RstdValues>) {
      rstd_out(row) = rstd;
    }
  }

  // Pack j of y, h * rstd * weight factor, where `factors` is the weight's
  // Pack j as weight.convert returned it.
  template <class Backend, class Factors>
  KOKKOS_INLINE_FUNCTION void scaled(const pack& h, accumulation_type rstd,
                                     const Factors& factors,
                                     accumulation_type (&values)[width]) const {
    for (int k = 0; k < width; ++k) {
      values[k] = Backend::template widened<accumulation_type>(h, k) * rstd;
    }
    weight.scale(factors, values);
  }

  // The largest |h * weight factor| of a Pack (0 if all are NaN): the
  // largest of a row's Packs times rstd is the row's largest |y|, which the
  // sweep summing squares can find then, before rstd is known.
  template <class Backend, class Factors>
  KOKKOS_INLINE_FUNCTION accumulation_type
  largest_product(const pack& h, const Factors& factors) const {
    accumulation_type values[width];
    scaled<Backend>(h, accumulation_type(1), factors, values);
    accumulation_type largest = 0;
    for (int k = 0; k < width; ++k) {
      largest = Backend::larger_magnitude(largest, values[k]);
    }
    return largest;
  }

  // Pack j of y from h, rstd and `factors` (see scaled) as it is stored:
  // multiplied by `multiplier`, 1 / the row's scale, where it is quantized.
  template <class Backend, class Factors>
  KOKKOS_INLINE_FUNCTION void y_values(
      const pack& h, accumulation_type rstd, const Factors& factors,
      [[maybe_unused]] accumulation_type multiplier,
      accumulation_type (&values)[width]) const {
    scaled<Backend>(h, rstd, factors, values);
    if constexpr (quantizes) {
      for (int k = 0; k < width; ++k) {
        values[k] *= multiplier;
      }
    }
  }

  // Stores Packs [j, j + Packs) of `row` of y from their values (y_values):
  // rounded as the backend rounds, or quantized, all Packs' values converted
  // together, so that a host compiler converts them in vector registers
  // (log 90).
  template <class Backend, int Packs>
  KOKKOS_INLINE_FUNCTION void store_values(
      std::size_t row, int j,
      const accumulation_type (&values)[Packs][width]) const {
    using y_pack = typename YRows::non_const_value_type;
    y_pack out[Packs];
    if constexpr (quantizes) {
      accumulation_type flat[Packs * width];
      typename y_pack::value_type codes[Packs * width];
      for (int s = 0; s < Packs; ++s) {
        for (int k = 0; k < width; ++k) {
          flat[s * width + k] = values[s][k];
        }
      }
      Quantization::template codes_of<Backend>(flat, codes);
      for (int s = 0; s < Packs; ++s) {
        for (int k = 0; k < width; ++k) {
          out[s].lane[k] = codes[s * width + k];
        }
      }
    } else {
      for (int s = 0; s < Packs; ++s) {
        for (int k = 0; k < width; ++k) {
          out[s].lane[k] = Backend::template round_to<value_type>(values[s][k]);
        }
      }
    }
    if constexpr (Packs > 1 && Kokkos::is_view<YRows>::value) {
      // Packs that lie contiguous are stored through a pointer, which the
      // compiler vectorizes; through the View each store multiplied by the
      // stride (log 92).
      if (packs_contiguous(y)) {
        y_pack* const first = &y(row, j);
        for (int s = 0; s < Packs; ++s) {
          first[s] = out[s];
        }
        return;
      }
    }
    for (int s = 0; s < Packs; ++s) {
      write_pack(y, row, j + s, out[s]);
    }
  }

  // Stores Pack j of y from h, rstd and `factors` (y_values, store_values).
  template <class Backend, class Factors>
  KOKKOS_INLINE_FUNCTION void store_scaled(std::size_t row, int j,
                                           const pack& h,
                                           accumulation_type rstd,
                                           const Factors& factors,
                                           accumulation_type multiplier) const {
    accumulation_type values[1][width];
    y_values<Backend>(h, rstd, factors, multiplier, values[0]);
    store_values<Backend, 1>(row, j, values);
  }

  // Stores the row's scale where each row has one, from its largest |y|.
  KOKKOS_INLINE_FUNCTION void store_row_scale(
      [[maybe_unused]] std::size_t row,
      [[maybe_unused]] accumulation_type largest) const {
    if constexpr (quantizes) {
      quantization.store_row_scale(row, largest);
    }
  }

  // 1 / the row's scale (1 where y is not quantized), from its largest |y|
  // where each row has a scale.
  KOKKOS_INLINE_FUNCTION accumulation_type
  multiplier([[maybe_unused]] accumulation_type largest) const {
    if constexpr (quantizes) {
      return quantization.row_multiplier(largest);
    } else {
      return 1;
    }
  }

  // The weight's Pack j (None without a weight) for the row's Pack j.
  KOKKOS_INLINE_FUNCTION auto weight_at(std::size_t row, int j) const {
    return weight.load(j, lead_of(x, row));
  }
};

// Where the rows a RowMath reads start: on a Pack (rows_fit_packs), or
// anywhere, all row arguments leading alike (rows_lead_as).
enum class RowStarts { on_packs, anywhere };

// The RowMath of rows of Packs of Width over the given rows (None where
// absent), weight argument, rstd values and quantization (a
// QuantizedOutput, or None); rows of StaticN values (0: known at run time
// only) that start on a Pack have a static number of Packs.
template <int Width, RowStarts Starts = RowStarts::on_packs,
          std::size_t StaticN = 0, class XRows, class ResidualRows,
          class SumRows, class Weight, class YRows, class RstdValues,
          class Quantization = None>
auto make_row_math(const XRows& x, const ResidualRows& residual,
                   const SumRows& sum, const Weight& weight, const YRows& y,
                   const RstdValues& rstd, double eps,
                   const Quantization& quantization = {}) {
  constexpr bool on_packs = Starts == RowStarts::on_packs;
  const auto packs = [](const auto& rows) {
    if constexpr (on_packs) {
      return as_pack_rows<Width>(rows);
    } else {
      return as_shifted_pack_rows<Width>(rows);
    }
  };
  const auto factors = [&] {
    if constexpr (on_packs) {
      return weight_factors<Width>(weight);
    } else {
      return shifted_weight_factors<Width>(weight);
    }
  };
  constexpr std::size_t static_packs =
      on_packs && StaticN % Width == 0 ? StaticN / Width : 0;
  using Math =
      RowMath<decltype(packs(x)), decltype(packs(residual)),
              decltype(packs(sum)), decltype(factors()), decltype(packs(y)),
              RstdValues, Quantization, static_packs>;
  using accumulation_type = typename Math::accumulation_type;
  return Math{
      packs(x),
      packs(residual),
      packs(sum),
      factors(),
      packs(y),
      rstd,
      static_cast<accumulation_type>(eps),
      accumulation_type(1) / static_cast<accumulation_type>(x.extent(1)),
      quantization};
}

}  // namespace KokkosRMSNorm::Impl

#endif
