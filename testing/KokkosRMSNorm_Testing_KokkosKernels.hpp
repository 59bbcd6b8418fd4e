// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TESTING_KOKKOSKERNELS_HPP
#define KOKKOSRMSNORM_TESTING_KOKKOSKERNELS_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrm2_squared.hpp>
#include <KokkosBlas1_scal.hpp>

#include <Impl/KokkosRMSNorm_Compat.hpp>

namespace KokkosRMSNorm::Testing {

// RMSNorm composed from KokkosBlas primitives, as a Kokkos user without this
// package would write it: the baseline the fused kernel is read against.
// The row-major rows x N data is seen as an N x rows LayoutLeft matrix whose
// columns are the rows, so each BLAS call works column by column.
template <class T, class Device>
class KokkosKernelsRMSNorm {
 public:
  using execution_space = typename Device::execution_space;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Device>;
  using Vector = Kokkos::View<T*, Device>;

  // The per-row workspace is allocated once, here, not per call.
  explicit KokkosKernelsRMSNorm(std::size_t rows)
      : sums_of_squares_("sums_of_squares", rows), factors_("factors", rows) {}

  void operator()(const Matrix& x, const Vector& weight, const Matrix& y,
                  T eps) const {
    using Columns =
        Kokkos::View<T**, Kokkos::LayoutLeft, Device, Kokkos::MemoryUnmanaged>;
    const std::size_t rows = x.extent(0);
    const std::size_t n = x.extent(1);
    const Columns x_columns(x.data(), n, rows);
    const Columns y_columns(y.data(), n, rows);
    KokkosBlas::nrm2_squared(sums_of_squares_, x_columns);
    const auto sums = sums_of_squares_;
    const auto factors = factors_;
    Kokkos::parallel_for(
        "KokkosKernelsRMSNorm::factors",
        Kokkos::RangePolicy<execution_space>(0, rows), KOKKOS_LAMBDA(int i) {
          factors(i) = KokkosRMSNorm::Impl::rsqrt(sums(i) / T(n) + eps);
        });
    KokkosBlas::scal(y_columns, factors, x_columns);
    KokkosBlas::mult(T(0), y_columns, T(1), weight, y_columns);
  }

 private:
  Vector sums_of_squares_;
  Vector factors_;
};

}  // namespace KokkosRMSNorm::Testing

#endif
