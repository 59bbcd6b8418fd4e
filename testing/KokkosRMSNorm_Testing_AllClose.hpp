#ifndef KOKKOSRMSNORM_TESTING_ALLCLOSE_HPP
#define KOKKOSRMSNORM_TESTING_ALLCLOSE_HPP

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>

#include "KokkosRMSNorm_Testing_Reference.hpp"

namespace KokkosRMSNorm::Testing {

struct Mismatches {
  std::size_t count = 0;
  std::string first;  // where and by how much the first mismatch is off

  explicit operator bool() const { return count > 0; }
};

// numpy.allclose semantics: |actual - expected| <= atol + rtol * |expected|,
// elementwise; NaN in actual matches only NaN in expected.
inline Mismatches allclose(const HostMatrix& actual, const HostMatrix& expected,
                           double rtol, double atol) {
  Mismatches out;
  for (std::size_t i = 0; i < expected.extent(0); ++i) {
    for (std::size_t j = 0; j < expected.extent(1); ++j) {
      const double a = actual(i, j);
      const double e = expected(i, j);
      const bool close = std::isnan(e)
                             ? std::isnan(a)
                             : std::abs(a - e) <= atol + rtol * std::abs(e);
      if (close)
        continue;
      if (out.count++ == 0) {
        std::ostringstream where;
        where << "at (" << i << ", " << j << "): got " << a << ", expected "
              << e;
        out.first = where.str();
      }
    }
  }
  return out;
}

}  // namespace KokkosRMSNorm::Testing

#endif
