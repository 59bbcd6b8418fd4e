// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_NUMERICS_HPP
#define KOKKOSRMSNORM_IMPL_NUMERICS_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Compat.hpp"

namespace KokkosRMSNorm::Impl {

// Whether T is Kokkos's bfloat16, which Kokkos before 3.6 lacks.
template <class T>
inline constexpr bool is_bfloat16_v =
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
    std::is_same_v<T, Kokkos::Experimental::bhalf_t>;
#else
    false;
#endif

template <class T>
inline constexpr bool is_supported_value_type_v =
    is_bfloat16_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, Kokkos::Experimental::half_t>;

// Sums of squares and the scaling run in float for every type narrower than
// double, and in double for double.
template <class T>
using accumulation_type_t =
    std::conditional_t<std::is_same_v<T, double>, double, float>;

}  // namespace KokkosRMSNorm::Impl

#endif
