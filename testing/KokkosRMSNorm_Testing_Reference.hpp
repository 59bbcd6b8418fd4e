#ifndef KOKKOSRMSNORM_TESTING_REFERENCE_HPP
#define KOKKOSRMSNORM_TESTING_REFERENCE_HPP

#include <cmath>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Testing {

using HostMatrix =
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using HostVector = Kokkos::View<double*, Kokkos::HostSpace>;

// A LayoutRight View of `view`'s extents in its memory space: Kokkos copies
// between memory spaces only between contiguous Views of one layout.
template <class View>
auto contiguous_like(const View& view) {
  using Contiguous =
      Kokkos::View<typename View::non_const_data_type, Kokkos::LayoutRight,
                   typename View::memory_space>;
  if constexpr (View::rank == 1) {
    return Contiguous("contiguous", view.extent(0));
  } else {
    return Contiguous("contiguous", view.extent(0), view.extent(1));
  }
}

template <class View>
auto contiguous_copy(const View& view) {
  const auto copy = contiguous_like(view);
  Kokkos::deep_copy(copy, view);
  return copy;
}

// Copies any rank-2 View to the host as doubles.
template <class View>
HostMatrix to_host_doubles(const View& view) {
  const auto mirror = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), contiguous_copy(view));
  HostMatrix out("host", view.extent(0), view.extent(1));
  for (std::size_t i = 0; i < out.extent(0); ++i) {
    for (std::size_t j = 0; j < out.extent(1); ++j) {
      out(i, j) = static_cast<double>(mirror(i, j));
    }
  }
  return out;
}

template <class View>
HostVector to_host_doubles_1d(const View& view) {
  const auto mirror = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), contiguous_copy(view));
  HostVector out("host", view.extent(0));
  for (std::size_t j = 0; j < out.extent(0); ++j) {
    out(j) = static_cast<double>(mirror(j));
  }
  return out;
}

// RMSNorm in double on the host, written plainly and independently of the
// kernel: y(i, j) = x(i, j) / sqrt(mean_j x(i, j)^2 + eps) * w(j).
inline HostMatrix reference_rms_norm(const HostMatrix& x, const HostVector& w,
                                     double eps) {
  HostMatrix y("reference", x.extent(0), x.extent(1));
  const std::size_t n = x.extent(1);
  for (std::size_t i = 0; i < x.extent(0); ++i) {
    double sum_of_squares = 0;
    for (std::size_t j = 0; j < n; ++j)
      sum_of_squares += x(i, j) * x(i, j);
    const double rstd = 1.0 / std::sqrt(sum_of_squares / n + eps);
    for (std::size_t j = 0; j < n; ++j)
      y(i, j) = x(i, j) * rstd * w(j);
  }
  return y;
}

}  // namespace KokkosRMSNorm::Testing

#endif
