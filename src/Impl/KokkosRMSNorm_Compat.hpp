// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_COMPAT_HPP
#define KOKKOSRMSNORM_IMPL_COMPAT_HPP

// The few places where Kokkos 3.4 and Kokkos 4.x spell things differently.

#include <string>

#include <Kokkos_Core.hpp>
#if KOKKOS_VERSION >= 40100
#include <Kokkos_Profiling_ScopedRegion.hpp>
#endif

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

// A Kokkos Tools profiling region open for the object's lifetime: Kokkos's
// ScopedRegion (4.1 on), or the push and pop it wraps before.
#if KOKKOS_VERSION >= 40100
using ProfilingRegion = Kokkos::Profiling::ScopedRegion;
#else
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) {
    Kokkos::Profiling::pushRegion(name);
  }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};
#endif

// Whether a and b are the same execution space instance. Kokkos compares
// instances from 4.1; before, every instance but HPX's has the id 0, so all
// count as one.
template <class ExecutionSpace>
bool same_instance(const ExecutionSpace& a, const ExecutionSpace& b) {
#if KOKKOS_VERSION >= 40100
  return a == b;
#else
  return a.impl_instance_id() == b.impl_instance_id();
#endif
}

}  // namespace KokkosRMSNorm::Impl

#endif
