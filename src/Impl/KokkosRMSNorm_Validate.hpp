#ifndef KOKKOSRMSNORM_IMPL_VALIDATE_HPP
#define KOKKOSRMSNORM_IMPL_VALIDATE_HPP

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

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

[[noreturn]] inline void throw_invalid(const std::string& message) {
  throw std::invalid_argument("KokkosRMSNorm::rms_norm: " + message);
}

// Checks what only the values can tell, before anything is launched.
template <class XView, class WeightView, class YView>
void validate_arguments(const XView& x, const WeightView& weight,
                        const YView& y, double eps) {
  for (unsigned r = 0; r < XView::rank; ++r) {
    if (x.extent(r) != y.extent(r)) {
      throw_invalid("y extents " + extents_of(y) + " differ from x extents " +
                    extents_of(x));
    }
  }
  if (weight.extent(0) != x.extent(XView::rank - 1)) {
    throw_invalid("weight extents " + extents_of(weight) +
                  " do not match the row length of x extents " + extents_of(x));
  }
  if (std::isnan(eps) || eps < 0) {
    std::ostringstream out;
    out << "eps must be a non-negative number, got " << eps << " (x extents "
        << extents_of(x) << ")";
    throw_invalid(out.str());
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
