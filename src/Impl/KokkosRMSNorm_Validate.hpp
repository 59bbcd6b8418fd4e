// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_VALIDATE_HPP
#define KOKKOSRMSNORM_IMPL_VALIDATE_HPP

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"

namespace KokkosRMSNorm::Impl {

// What only the values can tell, checked before anything is launched. Each
// error names the entry point (`function`, as "KokkosRMSNorm::rms_norm"),
// the argument and the extents involved.

template <class View>
std::string extents_of(const View& view) {
  std::ostringstream out;
  out << '(';
  for (unsigned r = 0; r < View::rank; ++r) {
    out << (r ? ", " : "") << view.extent(r);
  }
  out << ')';
  return out.str();
}

[[noreturn]] inline void throw_invalid(const char* function,
                                       const std::string& message) {
  throw std::invalid_argument(std::string(function) + ": " + message);
}

// A row argument has x's extents.
template <class View, class XView>
void require_extents_of_x(const char* function, const char* name,
                          const View& view, const XView& x) {
  if constexpr (!is_none_v<View>) {
    for (unsigned r = 0; r < XView::rank; ++r) {
      if (view.extent(r) != x.extent(r)) {
        throw_invalid(function, std::string(name) + " extents " +
                                    extents_of(view) +
                                    " differ from x extents " + extents_of(x));
      }
    }
  }
}

// A weight or weight gradient has one value per column of x.
template <class View, class XView>
void require_row_length(const char* function, const char* name,
                        const View& view, const XView& x) {
  if constexpr (!is_none_v<View>) {
    if (view.extent(0) != x.extent(XView::rank - 1)) {
      throw_invalid(function, std::string(name) + " extents " +
                                  extents_of(view) +
                                  " do not match the row length of x extents " +
                                  extents_of(x));
    }
  }
}

// rstd has one value per row of x: x's extents but the last.
template <class View, class XView>
void require_one_per_row(const char* function, const char* name,
                         const View& view, const XView& x) {
  if constexpr (!is_none_v<View>) {
    for (unsigned r = 0; r + 1 < XView::rank; ++r) {
      if (view.extent(r) != x.extent(r)) {
        throw_invalid(function, std::string(name) + " extents " +
                                    extents_of(view) +
                                    " do not match the rows of x extents " +
                                    extents_of(x));
      }
    }
  }
}

// eps is finite and not negative, and a positive eps stays positive in the
// accumulation type (1e-50 is 0 in float), where it guards 1 / sqrt(mean).
template <class XView>
void require_valid_eps(const char* function, double eps, const XView& x) {
  using Accumulation =
      accumulation_type_t<typename XView::non_const_value_type>;
  const char* problem = !std::isfinite(eps) || eps < 0
                            ? "eps must be a finite, non-negative number"
                        : eps > 0 && static_cast<Accumulation>(eps) == 0
                            ? "eps is positive but 0 in the accumulation type"
                            : nullptr;
  if (problem) {
    std::ostringstream out;
    out << problem << ", got " << eps << " (x extents " << extents_of(x) << ")";
    throw_invalid(function, out.str());
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
