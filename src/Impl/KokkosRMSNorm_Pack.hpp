// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_PACK_HPP
#define KOKKOSRMSNORM_IMPL_PACK_HPP

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_None.hpp"

namespace KokkosRMSNorm::Impl {

// Width consecutive elements moved as one aligned access. The alignment is
// what lets a GPU compiler emit one 16-byte load or store per Pack.
template <class T, int Width>
struct alignas(sizeof(T) * Width) Pack {
  using value_type = T;
  static constexpr int width = Width;
  T lane[Width];
};

// How a lane holds a Pack (or None) in registers between a load and a use:
// as it is, or, for 16-bit values, as the 32-bit words it was loaded as.
// Held as Packs, each 16-bit value takes a register of its own; as words,
// two share one, which leaves registers for more teams (log 29). `hold`
// takes the Pack by value: copied to words from a reference into global
// memory, nvcc read it byte by byte (log 85). `reread` is the value for its
// last use: its 32-bit words pass through the backend's `opaque`, so that
// the compiler cannot keep the values it derived for an earlier use alive
// until then (a lane's eight bfloat16 Packs spilled, log 106; so did float
// and double backward lanes, logs 107, 109).
template <class P, class = void>
struct HeldPack {
  P pack;

  KOKKOS_INLINE_FUNCTION static HeldPack hold(P loaded) { return {loaded}; }
  KOKKOS_INLINE_FUNCTION P value() const { return pack; }
  template <class Backend>
  KOKKOS_INLINE_FUNCTION P reread() const {
    static_assert(sizeof(P) % 4 == 0, "a Pack of whole 32-bit words");
    std::uint32_t words[sizeof(P) / 4];
    memcpy(words, &pack, sizeof(P));
    for (auto& word : words) {
      word = Backend::opaque(word);
    }
    P reread_pack;
    memcpy(static_cast<void*>(&reread_pack), words, sizeof(P));
    return reread_pack;
  }
};

template <class T, int Width>
struct HeldPack<Pack<T, Width>, std::enable_if_t<(sizeof(T) < 4)>> {
  using P = Pack<T, Width>;
  static constexpr int word_count = (sizeof(P) + 3) / 4;
  std::uint32_t words[word_count];

  KOKKOS_INLINE_FUNCTION static HeldPack hold(P loaded) {
    HeldPack held{};
    memcpy(held.words, &loaded, sizeof(P));
    return held;
  }

  KOKKOS_INLINE_FUNCTION P value() const {
    P pack;
    memcpy(static_cast<void*>(&pack), words, sizeof(P));
    return pack;
  }

  template <class Backend>
  KOKKOS_INLINE_FUNCTION P reread() const {
    HeldPack opaque_words{};
    for (int w = 0; w < word_count; ++w) {
      opaque_words.words[w] = Backend::opaque(words[w]);
    }
    return opaque_words.value();
  }
};

// Elements per 16-byte Pack.
template <class T>
inline constexpr int vector_width_v = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;

// A Pack of T's unqualified type that keeps T's constness.
template <class T, int Width>
using PackOf = std::conditional_t<std::is_const_v<T>,
                                  const Pack<std::remove_const_t<T>, Width>,
                                  Pack<T, Width>>;

// Rows of Packs over the memory of a user's rank-2 View.
template <class T, int Width, class MemorySpace>
using PackRows = Kokkos::View<PackOf<T, Width>**, Kokkos::LayoutStride,
                              MemorySpace, Kokkos::MemoryUnmanaged>;

// One row of Packs over the memory of a user's rank-1 View.
template <class T, int Width, class MemorySpace>
using PackRow = Kokkos::View<PackOf<T, Width>*, Kokkos::LayoutStride,
                             MemorySpace, Kokkos::MemoryUnmanaged>;

inline bool is_aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

// Whether the rows of a rank-2 View can be read as Packs of Width: unit
// element stride, whole Packs per row, and every row start aligned.
template <int Width, class View>
bool rows_fit_packs(const View& view) {
  using T = typename View::non_const_value_type;
  const auto rows = view.extent(0);
  const auto columns = view.extent(1);
  return view.stride(1) == 1 && columns % Width == 0 &&
         (rows <= 1 || view.stride(0) % Width == 0) &&
         is_aligned(view.data(), sizeof(T) * Width);
}

template <int Width, class View>
bool row_fits_packs(const View& view) {
  using T = typename View::non_const_value_type;
  return view.stride(0) == 1 && view.extent(0) % Width == 0 &&
         is_aligned(view.data(), sizeof(T) * Width);
}

// Whether each row's Packs lie contiguous in memory (a column stride of
// one, known at run time only).
template <class Rows>
KOKKOS_INLINE_FUNCTION bool packs_contiguous(const Rows& rows) {
  return rows.stride(1) == 1;
}

// The same memory as `view`, seen as rows of Packs of Width.
template <int Width, class View>
auto as_pack_rows(const View& view) {
  using T = typename View::value_type;
  using Rows = PackRows<T, Width, typename View::memory_space>;
  using Element = typename Rows::value_type;
  const Kokkos::LayoutStride layout(view.extent(0), view.stride(0) / Width,
                                    view.extent(1) / Width, view.stride(1));
  return Rows(reinterpret_cast<Element*>(view.data()), layout);
}

template <int Width, class View>
auto as_pack_row(const View& view) {
  using T = typename View::value_type;
  using Row = PackRow<T, Width, typename View::memory_space>;
  using Element = typename Row::value_type;
  const Kokkos::LayoutStride layout(view.extent(0) / Width, view.stride(0));
  return Row(reinterpret_cast<Element*>(view.data()), layout);
}

// An absent operand fits any Packs and stays absent.
template <int Width>
bool rows_fit_packs(None) {
  return true;
}
template <int Width>
bool row_fits_packs(None) {
  return true;
}
template <int Width>
None as_pack_rows(None) {
  return {};
}
template <int Width>
None as_pack_row(None) {
  return {};
}

}  // namespace KokkosRMSNorm::Impl

#endif
