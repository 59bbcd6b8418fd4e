// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_NONE_HPP
#define KOKKOSRMSNORM_IMPL_NONE_HPP

#include <type_traits>

namespace KokkosRMSNorm::Impl {

// An operand a call does not have (a residual, an rstd output, a weight).
// Every step that maps an operand maps None to None, and the kernels test
// for it at compile time.
struct None {};

template <class T>
inline constexpr bool is_none_v = std::is_same_v<T, None>;

}  // namespace KokkosRMSNorm::Impl

#endif
