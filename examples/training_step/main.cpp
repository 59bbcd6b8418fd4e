// SPDX-License-Identifier: BSD-3-Clause
// training_step: RMSNorm in a training step. The forward pass keeps rstd
// for the backward pass, which gives dx and the weight gradient dweight;
// dweight is summed without atomics in a fixed order (in a Workspace kept
// across steps), so two steps give the same bits. Checks dx against central
// differences of the loss sum(y * dy) and dweight against a second call,
// and prints True or False.

#include <cmath>
#include <cstdio>
#include <utility>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<double**, Space>;
using Vector = Kokkos::View<double*, Space>;
constexpr double eps = 1e-6;

// The loss sum(y * dy) of y = rms_norm(x, weight), whose gradient in y is dy.
double loss(const Matrix& x, const Vector& weight, const Matrix& dy) {
  Matrix y("y", x.extent(0), x.extent(1));
  KokkosRMSNorm::rms_norm(x, weight, y, eps);
  double total = 0;
  Kokkos::parallel_reduce(
      "training_step::loss",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(
          {0, 0}, {int(x.extent(0)), int(x.extent(1))}),
      KOKKOS_LAMBDA(int i, int j, double& sum) { sum += y(i, j) * dy(i, j); },
      total);
  return total;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int rows = 8, n = 96;
  Matrix x("x", rows, n), y("y", rows, n), dy("dy", rows, n), dx("dx", rows, n);
  Vector weight("weight", n), dweight("dweight", n), again("again", n);
  Kokkos::View<double*, Space> rstd("rstd", rows);
  Kokkos::Random_XorShift64_Pool<Space> random(2024);
  Kokkos::fill_random(x, random, -1.0, 1.0);
  Kokkos::fill_random(dy, random, -1.0, 1.0);
  Kokkos::fill_random(weight, random, 0.5, 1.5);

  KokkosRMSNorm::Workspace<Space> workspace;  // kept across steps
  KokkosRMSNorm::rms_norm(Space(), x, weight, y, eps, rstd);
  KokkosRMSNorm::rms_norm_backward(Space(), dy, x, weight, rstd, dx, dweight,
                                   workspace);
  KokkosRMSNorm::rms_norm_backward(Space(), dy, x, weight, rstd, dx, again,
                                   workspace);

  // dweight: the same bits from both calls.
  const auto dweight_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dweight);
  const auto again_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
  bool ok = true;
  for (int j = 0; j < n; ++j) {
    ok = ok && dweight_host(j) == again_host(j);
  }
  // dx: central differences of the loss, in double; their error, about
  // h^2 = 1e-8 relative, is far above double rounding.
  const auto dx_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dx);
  const auto x_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const double h = 1e-4;
  for (const auto& [row, column] :
       {std::pair{0, 0}, std::pair{3, 50}, std::pair{7, 95}}) {
    const int i = row, j = column;
    const double value = x_host(i, j);
    const auto nudge = [&](double to) {
      Kokkos::deep_copy(Kokkos::subview(x, i, j), to);
      return loss(x, weight, dy);
    };
    const double numeric = (nudge(value + h) - nudge(value - h)) / (2 * h);
    nudge(value);
    const bool close =
        std::fabs(numeric - dx_host(i, j)) < 1e-6 * (1 + std::fabs(numeric));
    std::printf("dx(%d, %d) = %.9f, central difference %.9f\n", i, j,
                dx_host(i, j), numeric);
    ok = ok && close;
  }
  std::printf("%s\n", ok ? "True" : "False");
  return ok ? 0 : 1;
}
