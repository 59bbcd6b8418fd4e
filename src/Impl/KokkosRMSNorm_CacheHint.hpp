#ifndef KOKKOSRMSNORM_IMPL_CACHEHINT_HPP
#define KOKKOSRMSNORM_IMPL_CACHEHINT_HPP

#include <cstring>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// Loads *p, giving it the last place in line for eviction from L2, as
// torch.compile's generated RMSNorm loads x. The package's one piece of
// backend-specific code, because Kokkos has no cache hints: on an H200 this
// hint on the first read of each row took f32 rows of N = 2048-16384 3.5-5%
// closer to the copy ceiling (log 26; the same hint on L1 as well gained
// less, on L1 alone nothing). On NVIDIA GPUs of compute capability 8.0 and
// newer a 16-byte value is loaded with the PTX hint; elsewhere, plainly.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_evicting_last(const T* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 16) {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    unsigned words[4];
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]),
                   "=r"(words[3])
                 : "l"(p), "l"(policy));
    T value;
    memcpy(&value, words, sizeof(T));
    return value;
  }
#endif
  return *p;
}

}  // namespace KokkosRMSNorm::Impl

#endif
