#ifndef KOKKOSRMSNORM_RMSNORM_HPP
#define KOKKOSRMSNORM_RMSNORM_HPP

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "Impl/KokkosRMSNorm_Kernel.hpp"
#include "Impl/KokkosRMSNorm_Numerics.hpp"
#include "Impl/KokkosRMSNorm_Pack.hpp"
#include "Impl/KokkosRMSNorm_Rows.hpp"
#include "Impl/KokkosRMSNorm_Validate.hpp"

namespace KokkosRMSNorm {

/// Normalizes each row of x by its root mean square and scales it by weight:
///
///   y(i, j) = x(i, j) * rstd(i) * weight(j),
///   rstd(i) = 1 / sqrt(sum_j x(i, j)^2 / N + eps).
///
/// x and y are Views of one value type (float, double, half_t, bhalf_t) and
/// one rank: 2 (rows x N) or 3 (batch x sequence x N), normalized over the
/// last extent; y may be x itself. weight is a rank-1 View of length N, of
/// any of those types. Sums and products are computed in double for double
/// and in float otherwise. The call is asynchronous on `space`: it launches
/// one kernel, does not fence and does not allocate. Bad extents or eps
/// throw std::invalid_argument before any launch, leaving y untouched;
/// empty Views are a no-op.
template <class ExecutionSpace, class XView, class WeightView, class YView>
void rms_norm(const ExecutionSpace& space, const XView& x,
              const WeightView& weight, const YView& y, double eps) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "KokkosRMSNorm::rms_norm: space must be a Kokkos execution "
                "space instance");
  static_assert(Kokkos::is_view<XView>::value &&
                    Kokkos::is_view<WeightView>::value &&
                    Kokkos::is_view<YView>::value,
                "KokkosRMSNorm::rms_norm: x, weight and y must be Kokkos "
                "Views");
  static_assert(
      (XView::rank == 2 || XView::rank == 3) && YView::rank == XView::rank,
      "KokkosRMSNorm::rms_norm: x and y must be Views of one rank, "
      "2 (rows x N) or 3 (batch x sequence x N)");
  static_assert(WeightView::rank == 1,
                "KokkosRMSNorm::rms_norm: weight must be a rank-1 View "
                "(length N)");
  using value_type = typename YView::non_const_value_type;
  static_assert(!std::is_const_v<typename YView::value_type>,
                "KokkosRMSNorm::rms_norm: y must not be const: the result "
                "is written to it");
  static_assert(
      std::is_same_v<typename XView::non_const_value_type, value_type>,
      "KokkosRMSNorm::rms_norm: x and y must hold the same value type");
  static_assert(Impl::is_supported_value_type_v<value_type> &&
                    Impl::is_supported_value_type_v<
                        typename WeightView::non_const_value_type>,
                "KokkosRMSNorm::rms_norm: values must be float, double, "
                "Kokkos::Experimental::half_t or bhalf_t");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace,
                                 typename XView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<
              ExecutionSpace, typename WeightView::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace,
                                     typename YView::memory_space>::accessible,
      "KokkosRMSNorm::rms_norm: x, weight and y must be in memory that the "
      "execution space can access");

  Impl::validate_arguments(x, weight, y, eps);
  const Impl::RowOrder order = Impl::common_row_order(x, y);
  if (x.size() == 0) {
    return;
  }

  const auto x_rows = Impl::as_rows(x, order);
  const auto y_rows = Impl::as_rows(y, order);
  constexpr int width = Impl::vector_width_v<value_type>;
  if (Impl::rows_fit_packs<width>(x_rows) &&
      Impl::rows_fit_packs<width>(y_rows) &&
      Impl::row_fits_packs<width>(weight)) {
    Impl::launch_rms_norm<width>(space, x_rows, weight, y_rows, eps);
  } else {
    Impl::launch_rms_norm<1>(space, x_rows, weight, y_rows, eps);
  }
}

/// rms_norm on a default instance of x's execution space.
template <class XView, class WeightView, class YView>
void rms_norm(const XView& x, const WeightView& weight, const YView& y,
              double eps) {
  rms_norm(typename XView::execution_space(), x, weight, y, eps);
}

}  // namespace KokkosRMSNorm

#endif
