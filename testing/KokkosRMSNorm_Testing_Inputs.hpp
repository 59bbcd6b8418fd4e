// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TESTING_INPUTS_HPP
#define KOKKOSRMSNORM_TESTING_INPUTS_HPP

#include <cstdint>
#include <random>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Testing_Reference.hpp"

namespace KokkosRMSNorm::Testing {

// Fills a View with values drawn uniformly from [-scale, scale) by a seeded
// generator on the host, so every backend sees the same inputs.
template <class View>
void fill_uniform(const View& view, std::uint64_t seed, double scale = 1.0) {
  const auto contiguous = contiguous_like(view);
  const auto mirror = Kokkos::create_mirror_view(contiguous);
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> uniform(-scale, scale);
  using T = typename View::non_const_value_type;
  if constexpr (View::rank == 1) {
    for (std::size_t i = 0; i < view.extent(0); ++i) {
      mirror(i) = static_cast<T>(uniform(generator));
    }
  } else {
    for (std::size_t i = 0; i < view.extent(0); ++i) {
      for (std::size_t j = 0; j < view.extent(1); ++j) {
        mirror(i, j) = static_cast<T>(uniform(generator));
      }
    }
  }
  Kokkos::deep_copy(contiguous, mirror);
  Kokkos::deep_copy(view, contiguous);
}

// Fills every element with one value, e.g. NaN before a call so that an
// element the call does not write shows up in the comparison.
template <class View>
void poison(const View& view, double value) {
  Kokkos::deep_copy(view,
                    static_cast<typename View::non_const_value_type>(value));
}

}  // namespace KokkosRMSNorm::Testing

#endif
