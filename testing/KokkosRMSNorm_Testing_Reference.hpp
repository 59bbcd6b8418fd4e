// SPDX-License-Identifier: BSD-3-Clause
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

// rstd(i) = 1 / sqrt(mean_j x(i, j)^2 + eps), in double on the host.
inline HostVector reference_rstd(const HostMatrix& x, double eps) {
  HostVector rstd("reference rstd", x.extent(0));
  const std::size_t n = x.extent(1);
  for (std::size_t i = 0; i < x.extent(0); ++i) {
    double sum_of_squares = 0;
    for (std::size_t j = 0; j < n; ++j)
      sum_of_squares += x(i, j) * x(i, j);
    rstd(i) = 1.0 / std::sqrt(sum_of_squares / n + eps);
  }
  return rstd;
}

// RMSNorm in double on the host, written plainly and independently of the
// kernel: y(i, j) = x(i, j) * rstd(i) * w(j), w the weight's factors.
inline HostMatrix reference_rms_norm(const HostMatrix& x, const HostVector& w,
                                     double eps) {
  const HostVector rstd = reference_rstd(x, eps);
  HostMatrix y("reference", x.extent(0), x.extent(1));
  for (std::size_t i = 0; i < x.extent(0); ++i)
    for (std::size_t j = 0; j < x.extent(1); ++j)
      y(i, j) = x(i, j) * rstd(i) * w(j);
  return y;
}

// The gradients of RMSNorm in double on the host, with the bound on the
// rounding error of each result: the sum of the magnitudes of the terms it
// is made of, so that a tolerance relative to it holds however the terms
// cancel.
struct ReferenceBackward {
  HostMatrix dx, dx_scale;
  HostVector dweight, dweight_scale;
};

inline ReferenceBackward reference_rms_norm_backward(const HostMatrix& dy,
                                                     const HostMatrix& x,
                                                     const HostVector& w,
                                                     const HostVector& rstd) {
  const std::size_t rows = x.extent(0), n = x.extent(1);
  ReferenceBackward out{
      HostMatrix("dx", rows, n), HostMatrix("dx scale", rows, n),
      HostVector("dweight", n), HostVector("dweight scale", n)};
  for (std::size_t i = 0; i < rows; ++i) {
    const double r = rstd(i);
    double dot = 0, dot_scale = 0;  // sum_j g x and sum_j |g x|, g = dy w
    for (std::size_t j = 0; j < n; ++j) {
      dot += dy(i, j) * w(j) * x(i, j);
      dot_scale += std::abs(dy(i, j) * w(j) * x(i, j));
    }
    for (std::size_t j = 0; j < n; ++j) {
      const double g = dy(i, j) * w(j);
      out.dx(i, j) = r * g - x(i, j) * r * r * r * dot / n;
      out.dx_scale(i, j) =
          std::abs(r * g) + std::abs(x(i, j)) * r * r * r * dot_scale / n;
      out.dweight(j) += dy(i, j) * x(i, j) * r;
      out.dweight_scale(j) += std::abs(dy(i, j) * x(i, j) * r);
    }
  }
  return out;
}

}  // namespace KokkosRMSNorm::Testing

#endif
