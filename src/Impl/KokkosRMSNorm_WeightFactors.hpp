// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_WEIGHTFACTORS_HPP
#define KOKKOSRMSNORM_IMPL_WEIGHTFACTORS_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "../KokkosRMSNorm_Weight.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_ShiftedRows.hpp"

namespace KokkosRMSNorm::Impl {

// The View a weight argument reads: the View itself, the View under
// OnePlus, or None for NoWeight.
template <class View>
View weight_view(const View& weight) {
  return weight;
}
template <class View>
View weight_view(const OnePlus<View>& weight) {
  return weight.weight;
}
inline None weight_view(NoWeight) {
  return {};
}

template <class Weight>
inline constexpr bool adds_one_v = false;
template <class View>
inline constexpr bool adds_one_v<OnePlus<View>> = true;

// Multiplies values by the weight's factors in the accumulation type: w,
// 1 + w, or nothing for a weightless Row (None).
template <class Row, bool AddOne>
struct WeightFactors {
  Row row;

  // Pack j of the factors as stored (None without a weight), for scale;
  // a lane may load it early. `lead`: the values before the first Pack
  // boundary of the row it scales, where rows do not start on one
  // (ShiftedPackRow).
  KOKKOS_INLINE_FUNCTION auto load([[maybe_unused]] int j,
                                   [[maybe_unused]] int lead = 0) const {
    if constexpr (is_none_v<Row>) {
      return None();
    } else if constexpr (Kokkos::is_view<Row>::value) {
      return row(j);
    } else {
      return row.read(j, lead);
    }
  }

  // The factors of `stored`, a Pack that load returned, in Accumulation:
  // converted once for every row that a lane scales with them.
  template <class Backend, class Accumulation, class Stored>
  KOKKOS_INLINE_FUNCTION static auto convert(const Stored& stored) {
    if constexpr (is_none_v<Stored>) {
      return None();
    } else {
      Pack<Accumulation, Stored::width> factors;
      for (int k = 0; k < Stored::width; ++k) {
        const auto factor = Backend::template widened<Accumulation>(stored, k);
        factors.lane[k] = AddOne ? Accumulation(1) + factor : factor;
      }
      return factors;
    }
  }

  // values[k] times factor k of `factors`, which convert returned.
  template <class Factors, class Accumulation, int Width>
  KOKKOS_INLINE_FUNCTION static void scale(
      [[maybe_unused]] const Factors& factors, Accumulation (&values)[Width]) {
    if constexpr (!is_none_v<Factors>) {
      for (int k = 0; k < Width; ++k) {
        values[k] *= factors.lane[k];
      }
    }
  }
};

// The factors of a weight argument read as Packs of Width.
template <int Width, class Weight>
auto weight_factors(const Weight& weight) {
  const auto row = as_pack_row<Width>(weight_view(weight));
  return WeightFactors<std::remove_const_t<decltype(row)>, adds_one_v<Weight>>{
      row};
}

// The same, beside rows that do not start on a Pack (ShiftedPackRows).
template <int Width, class Weight>
auto shifted_weight_factors(const Weight& weight) {
  using View = decltype(weight_view(weight));
  if constexpr (is_none_v<View>) {
    return WeightFactors<None, false>{};
  } else {
    return WeightFactors<ShiftedPackRow<View, Width>, adds_one_v<Weight>>{
        {weight_view(weight)}};
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
