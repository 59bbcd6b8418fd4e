// SPDX-License-Identifier: BSD-3-Clause
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

// |actual - expected| <= atol + rtol * scale elementwise, scale bounding
// the rounding error of each expected value; NaN in actual matches only NaN
// in expected.
inline Mismatches allclose_to_scale(const HostMatrix& actual,
                                    const HostMatrix& expected,
                                    const HostMatrix& scale, double rtol,
                                    double atol) {
  Mismatches out;
  for (std::size_t i = 0; i < expected.extent(0); ++i) {
    for (std::size_t j = 0; j < expected.extent(1); ++j) {
      const double a = actual(i, j);
      const double e = expected(i, j);
      const bool close = std::isnan(e)
                             ? std::isnan(a)
                             : std::abs(a - e) <= atol + rtol * scale(i, j);
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

// numpy.allclose semantics: |actual - expected| <= atol + rtol * |expected|.
inline Mismatches allclose(const HostMatrix& actual, const HostMatrix& expected,
                           double rtol, double atol) {
  HostMatrix magnitude("magnitude", expected.extent(0), expected.extent(1));
  for (std::size_t i = 0; i < expected.extent(0); ++i)
    for (std::size_t j = 0; j < expected.extent(1); ++j)
      magnitude(i, j) = std::abs(expected(i, j));
  return allclose_to_scale(actual, expected, magnitude, rtol, atol);
}

// A vector as a matrix of one row, over the same memory.
inline HostMatrix as_row(const HostVector& vector) {
  return HostMatrix(vector.data(), 1, vector.extent(0));
}

}  // namespace KokkosRMSNorm::Testing

#endif
