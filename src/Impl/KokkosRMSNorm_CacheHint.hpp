#ifndef KOKKOSRMSNORM_IMPL_CACHEHINT_HPP
#define KOKKOSRMSNORM_IMPL_CACHEHINT_HPP

#include <cstring>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// How x is first read: with PTX on NVIDIA GPUs, where Kokkos has no
// equivalent (cache hints, asynchronous copies), plain C++ elsewhere. (The
// package's other backend-specific code: reduce_over_lanes and
// max_teams_per_row.)

// Loads *p, giving it the last place in line for eviction from L2, as
// torch.compile's generated RMSNorm loads x. On an H200 this hint on the first
// read of each row took f32 rows of N = 2048-16384 3.5-5% closer to the copy
// ceiling (log 26; the same hint on L1 as well gained less, on L1 alone
// nothing). On NVIDIA GPUs of compute capability 8.0 and newer a 16-byte value
// is loaded with the PTX hint; elsewhere, plainly.
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

// Copies *from to *slot, in team scratch. On NVIDIA GPUs of compute
// capability 8.0 and newer a 16-byte value is copied by cp.async, from
// global to shared memory without passing through registers, and with the
// L2 policy of load_evicting_last; elsewhere, through registers. The copies
// a thread made are in place once it calls wait_for_copies_to_scratch.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void copy_to_scratch(T* slot, const T* from) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(T) == 16) {
    // One asm statement: with the policy made by a statement of its own,
    // nvcc 13.0 emitted cp.async instructions that read an unset register
    // for it (illegal instruction, bf16 split rows, log 34).
    asm volatile(
        "{\n\t.reg .b64 policy;\n\t"
        "createpolicy.fractional.L2::evict_last.b64 policy, 1.0;\n\t"
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, policy;\n\t}"
        :
        : "r"(static_cast<unsigned>(__cvta_generic_to_shared(slot))), "l"(from)
        : "memory");
    return;
  }
#endif
  *slot = *from;
}

KOKKOS_FORCEINLINE_FUNCTION void wait_for_copies_to_scratch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

}  // namespace KokkosRMSNorm::Impl

#endif
