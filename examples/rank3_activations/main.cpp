// SPDX-License-Identifier: BSD-3-Clause
// rank3_activations: activations as batch x sequence x hidden, normalized
// over hidden, with one rstd per (batch, position) in a rank-2 View, in
// either layout (LayoutLeft, as Fortran-ordered codes keep them, takes the
// rows in sequence-major order; nothing is copied). Checks rstd against a
// host computation and prints True or False.

#include <cmath>
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>

using Space = Kokkos::DefaultExecutionSpace;
constexpr double eps = 1e-5;

// Normalizes seeded batch x sequence x hidden activations of `Layout` and
// checks rstd(b, s) = 1 / sqrt(mean over hidden of x^2 + eps).
template <class Layout>
bool normalize_and_check(int batch, int sequence, int hidden) {
  Kokkos::View<float***, Layout, Space> x("x", batch, sequence, hidden),
      y("y", batch, sequence, hidden);
  Kokkos::View<float**, Layout, Space> rstd("rstd", batch, sequence);
  Kokkos::View<float*, Space> weight("weight", hidden);
  Kokkos::Random_XorShift64_Pool<Space> random(7);
  Kokkos::fill_random(x, random, -2.0f, 2.0f);
  Kokkos::deep_copy(weight, 1.0f);
  KokkosRMSNorm::rms_norm(x, weight, y, eps, rstd);
  const auto x_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto rstd_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rstd);
  bool ok = true;
  for (int b = 0; b < batch; ++b) {
    for (int s = 0; s < sequence; ++s) {
      double squares = 0;
      for (int h = 0; h < hidden; ++h) {
        squares += double(x_host(b, s, h)) * x_host(b, s, h);
      }
      const double expected = 1 / std::sqrt(squares / hidden + eps);
      // float sums of `hidden` squares: relative error far below 1e-5.
      ok = ok && std::fabs(rstd_host(b, s) - expected) < 1e-5 * expected;
    }
  }
  return ok;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const bool ok = normalize_and_check<Kokkos::LayoutRight>(3, 17, 512) &&
                  normalize_and_check<Kokkos::LayoutLeft>(3, 17, 512);
  std::printf("%s\n", ok ? "True" : "False");
  return ok ? 0 : 1;
}
