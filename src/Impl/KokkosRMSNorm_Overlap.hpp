// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_OVERLAP_HPP
#define KOKKOSRMSNORM_IMPL_OVERLAP_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_HeadRows.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm::Impl {

// The bytes a View of rank 1 or 2 covers, as `count` segments of `length`
// bytes, `pitch` bytes apart, from `begin`: a segment a row (or a column)
// where the other index is contiguous, else one segment over the whole span.
// A View of rank 3 covers at most a segment per leading index, over the
// span of the other two (a token's heads, see HeadRows), where those
// segments do not meet; else its whole span.
struct Footprint {
  std::intptr_t begin;
  std::size_t count, pitch, length;

  std::intptr_t end() const {
    return begin + std::intptr_t((count - 1) * pitch + length);
  }
};

template <class View>
Footprint footprint_of(const View& view) {
  const std::size_t size = sizeof(typename View::value_type);
  const auto begin = reinterpret_cast<std::intptr_t>(view.data());
  if constexpr (View::rank == 3) {
    const std::size_t inner = (view.extent(1) - 1) * view.stride(1) +
                              (view.extent(2) - 1) * view.stride(2) + 1;
    if (view.extent(0) == 1 || view.stride(0) >= inner) {
      return {begin, view.extent(0), view.stride(0) * size, inner * size};
    }
  } else {
    std::size_t extents[2] = {1, 1}, strides[2] = {0, 1};
    for (unsigned r = 0; r < View::rank; ++r) {
      extents[2 - View::rank + r] = view.extent(r);
      strides[2 - View::rank + r] = view.stride(r);
    }
    for (int inner : {1, 0}) {
      const int outer = 1 - inner;
      if (extents[inner] == 1 || strides[inner] == 1) {
        return {begin, extents[outer], strides[outer] * size,
                extents[inner] * size};
      }
    }
  }
  return {begin, 1, 0, view.span() * size};
}

// Whether some byte lies in a segment of each.
inline bool overlap(const Footprint& a, const Footprint& b) {
  if (a.end() <= b.begin || b.end() <= a.begin) {
    return false;
  }
  if (a.count > 1 && b.count > 1 && a.pitch != b.pitch) {
    return true;  // not worth solving: say they might
  }
  const std::size_t pitch =
      std::max(a.count > 1 ? a.pitch : 0, b.count > 1 ? b.pitch : 0);
  if (pitch == 0) {
    return true;  // one segment each, and their spans meet
  }
  if (a.length > pitch || b.length > pitch) {
    return true;  // segments that meet each other
  }
  // Segment i of a meets segment k of b where, for m = i - k and
  // d = b.begin - a.begin: d - a.length < m * pitch < d + b.length.
  const auto p = static_cast<std::intptr_t>(pitch);
  const std::intptr_t d = b.begin - a.begin;
  const auto floor_div = [](std::intptr_t n, std::intptr_t q) {
    return n / q - (n % q != 0 && n < 0);
  };
  const std::intptr_t lowest = floor_div(d - std::intptr_t(a.length), p) + 1;
  const std::intptr_t highest =
      -floor_div(-(d + std::intptr_t(b.length)), p) - 1;
  for (std::intptr_t m = lowest; m <= highest; ++m) {
    // Some i in [0, a.count) with k = i - m in [0, b.count).
    if (std::max<std::intptr_t>(0, m) <
        std::min(std::intptr_t(a.count), std::intptr_t(b.count) + m)) {
      return true;
    }
  }
  return false;
}

// Whether two Views of one value type are the same elements in the same
// order: one View, as far as a kernel can tell.
template <class A, class B>
bool same_view(const A& a, const B& b) {
  if constexpr (!std::is_same_v<typename A::value_type,
                                typename B::value_type> ||
                unsigned(A::rank) != unsigned(B::rank)) {
    return false;
  } else {
    for (unsigned r = 0; r < A::rank; ++r) {
      if (a.extent(r) != b.extent(r) || a.stride(r) != b.stride(r)) {
        return false;
      }
    }
    return a.data() == b.data();
  }
}

// The View under an argument: itself, or that of HeadRows or HeadValues.
template <class View>
const View& view_of(const View& view) {
  return view;
}
template <class View3>
const View3& view_of(const HeadRows<View3>& rows) {
  return rows.heads;
}
template <class View2>
const View2& view_of(const HeadValues<View2>& values) {
  return values.values;
}

// Throws std::invalid_argument if `output` shares memory with `other`
// (a View of rank 1 to 3, HeadRows, HeadValues or None), unless MayBeSame
// and they are the same View.
template <bool MayBeSame = false, class OutputArgument, class OtherArgument>
void require_apart(const char* function, const char* output_name,
                   const OutputArgument& output_argument,
                   const char* other_name,
                   const OtherArgument& other_argument) {
  const auto& output = view_of(output_argument);
  const auto& other = view_of(other_argument);
  using Output = std::decay_t<decltype(output)>;
  using Other = std::decay_t<decltype(other)>;
  if constexpr (!is_none_v<Output> && !is_none_v<Other>) {
    if (output.size() == 0 || other.size() == 0 ||
        (MayBeSame && same_view(output, other))) {
      return;
    }
    if (overlap(footprint_of(output), footprint_of(other))) {
      throw_invalid(function,
                    std::string(output_name) + " extents " +
                        extents_of(output) + " overlaps " + other_name +
                        " extents " + extents_of(other) +
                        (MayBeSame ? " without being the same View" : "") +
                        "; its results would depend on the order "
                        "of reads and writes");
    }
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
