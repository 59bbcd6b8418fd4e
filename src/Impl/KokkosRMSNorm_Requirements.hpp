// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_REQUIREMENTS_HPP
#define KOKKOSRMSNORM_IMPL_REQUIREMENTS_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "../KokkosRMSNorm_Quantization.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"

namespace KokkosRMSNorm::Impl {

// What the types of a call's arguments already tell, checked at compile
// time by every entry point. "Row Views" are the rank-2 to rank-4 data
// (x, y, residual, sum, dy, dx); None stands for an operand a call lacks.

template <class View>
struct ViewTraits {
  static constexpr bool is_view = Kokkos::is_view<View>::value;
  static constexpr bool is_const = std::is_const_v<typename View::value_type>;
  using value_type = typename View::non_const_value_type;
  static constexpr unsigned rank = View::rank;
  template <class ExecutionSpace>
  static constexpr bool accessible_from =
      Kokkos::SpaceAccessibility<ExecutionSpace,
                                 typename View::memory_space>::accessible;
};

template <>
struct ViewTraits<None> {
  static constexpr bool is_view = true;
  static constexpr bool is_const = false;
  using value_type = None;
  static constexpr unsigned rank = 0;
  template <class ExecutionSpace>
  static constexpr bool accessible_from = true;
};

template <class T>
inline constexpr bool is_view_v = Kokkos::is_view<T>::value;

template <class ExecutionSpace, class X, class... Rows>
constexpr void require_row_views() {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "KokkosRMSNorm: space must be a Kokkos execution space "
                "instance");
  static_assert(is_view_v<X> && (ViewTraits<Rows>::is_view && ...),
                "KokkosRMSNorm: x, y and the other row arguments must be "
                "Kokkos Views");
  static_assert(
      (X::rank >= 2 && X::rank <= 4) &&
          ((is_none_v<Rows> || ViewTraits<Rows>::rank == X::rank) && ...),
      "KokkosRMSNorm: x, y and the other row arguments must be "
      "Views of one rank, 2 (rows x N), 3 (batch x sequence x N, or tokens "
      "x heads x N) or 4 (batch x sequence x heads x N)");
  using T = typename X::non_const_value_type;
  static_assert(
      ((is_none_v<Rows> ||
        std::is_same_v<typename ViewTraits<Rows>::value_type, T>)&&...),
      "KokkosRMSNorm: x, y and the other row arguments must hold the same "
      "value type");
  static_assert(is_supported_value_type_v<T>,
                "KokkosRMSNorm: values must be float, double, "
                "Kokkos::Experimental::half_t or bhalf_t");
  static_assert(
      ViewTraits<X>::template accessible_from<ExecutionSpace> &&
          (ViewTraits<Rows>::template accessible_from<ExecutionSpace> && ...),
      "KokkosRMSNorm: every View must be in memory that the "
      "execution space can access");
}

template <class... Outputs>
constexpr void require_writable() {
  static_assert(!(ViewTraits<Outputs>::is_const || ...),
                "KokkosRMSNorm: outputs (y, sum, rstd, dx, dweight) must not "
                "be const: results are written to them");
}

// A weight or weight gradient: None, or a rank-1 View of length N.
template <class ExecutionSpace, class Weight>
constexpr void require_weight_view() {
  static_assert(ViewTraits<Weight>::is_view &&
                    (is_none_v<Weight> || ViewTraits<Weight>::rank == 1),
                "KokkosRMSNorm: weight must be a rank-1 View (length N)");
  static_assert(
      is_none_v<Weight> ||
          is_supported_value_type_v<typename ViewTraits<Weight>::value_type>,
      "KokkosRMSNorm: values must be float, double, "
      "Kokkos::Experimental::half_t or bhalf_t");
  static_assert(ViewTraits<Weight>::template accessible_from<ExecutionSpace>,
                "KokkosRMSNorm: every View must be in memory that the "
                "execution space can access");
}

// rstd: None, or one value of x's accumulation type per row of x.
template <class ExecutionSpace, class Rstd, class X>
constexpr void require_rstd_view() {
  static_assert(
      is_none_v<Rstd> ||
          (ViewTraits<Rstd>::rank + 1 == X::rank &&
           std::is_same_v<
               typename ViewTraits<Rstd>::value_type,
               accumulation_type_t<typename X::non_const_value_type>>),
      "KokkosRMSNorm: rstd must be a View of x's rank minus one holding the "
      "accumulation type (float, double for double x)");
  static_assert(ViewTraits<Rstd>::template accessible_from<ExecutionSpace>,
                "KokkosRMSNorm: every View must be in memory that the "
                "execution space can access");
}

// A quantized y: a View of bytes of x's rank, from x narrower than double;
// scales, where each row has one, a writable View of one float a row.
template <class ExecutionSpace, class Y, class X, class ScaleView>
constexpr void require_quantized_views() {
  static_assert(is_view_v<Y> && unsigned(Y::rank) == unsigned(X::rank),
                "KokkosRMSNorm: a quantized y must be a View of x's rank");
  using Code = typename ViewTraits<Y>::value_type;
  static_assert(
      std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::int8_t>,
      "KokkosRMSNorm: a quantized y must hold std::uint8_t or std::int8_t");
  static_assert(!std::is_same_v<typename X::non_const_value_type, double>,
                "KokkosRMSNorm: quantized outputs take x of float, half_t or "
                "bhalf_t");
  static_assert(ViewTraits<Y>::template accessible_from<ExecutionSpace>,
                "KokkosRMSNorm: every View must be in memory that the "
                "execution space can access");
  if constexpr (!std::is_same_v<ScaleView, OneScale>) {
    static_assert(is_view_v<ScaleView> &&
                      unsigned(ScaleView::rank) + 1 == unsigned(X::rank) &&
                      std::is_same_v<typename ScaleView::value_type, float>,
                  "KokkosRMSNorm: per-row scales must be a View of x's rank "
                  "minus one holding (non-const) float");
    static_assert(
        ViewTraits<ScaleView>::template accessible_from<ExecutionSpace>,
        "KokkosRMSNorm: every View must be in memory that the execution "
        "space can access");
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
