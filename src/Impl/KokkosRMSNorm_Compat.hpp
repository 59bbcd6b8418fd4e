#ifndef KOKKOSRMSNORM_IMPL_COMPAT_HPP
#define KOKKOSRMSNORM_IMPL_COMPAT_HPP

// The few places where Kokkos 3.4 and Kokkos 4.x spell things differently.

#include <Kokkos_Core.hpp>

// bhalf_t arrived in Kokkos 3.6.
#if KOKKOS_VERSION >= 30600
#define KOKKOSRMSNORM_HAS_BHALF_T
#endif

namespace KokkosRMSNorm::Impl {

template <class T>
KOKKOS_INLINE_FUNCTION T rsqrt(T value) {
#if KOKKOS_VERSION >= 40100
  return Kokkos::rsqrt(value);
#elif KOKKOS_VERSION >= 30700
  return T(1) / Kokkos::sqrt(value);
#else
  return T(1) / Kokkos::Experimental::sqrt(value);
#endif
}

}  // namespace KokkosRMSNorm::Impl

#endif
