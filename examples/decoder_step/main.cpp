// SPDX-License-Identifier: BSD-3-Clause
// decoder_step: the norms of a transformer decoder's layers, as an inference
// engine runs them. Each layer's sublayer (attention or MLP, here a stand-in
// that scales its input) writes x; add_rms_norm then adds x to the residual
// stream in place and normalizes it into x for the next sublayer, in one
// pass over memory (vLLM's fused_add_rms_norm). Two sequences are decoded
// at once, each on its own execution space instance (a CUDA stream each),
// so their kernels overlap. Checks that every row of x leaves each norm
// with a root mean square of 1 (a weight of ones) and prints True or False.

#include <cmath>
#include <cstdio>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm.hpp>

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<float**, Space>;

// Two instances of the default execution space: on a GPU, two streams. A
// host space of one thread cannot be partitioned (Kokkos aborts), so both
// sequences then share it.
std::vector<Space> two_instances() {
#if KOKKOS_VERSION >= 40000
  if (Space().concurrency() >= 2) {
    const auto spaces = Kokkos::Experimental::partition_space(Space(), 1, 1);
    return {spaces[0], spaces[1]};
  }
#endif
  return {Space(), Space()};
}

// A stand-in for attention or an MLP: x = 0.5 * x + 0.1 (a sublayer writes
// its output over its input's buffer, as engines reuse activations).
void sublayer(const Space& space, const Matrix& x) {
  Kokkos::parallel_for(
      "decoder_step::sublayer",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(
          space, {0, 0}, {int(x.extent(0)), int(x.extent(1))}),
      KOKKOS_LAMBDA(int i, int j) { x(i, j) = 0.5f * x(i, j) + 0.1f; });
}

// The largest distance of a row's root mean square from 1.
double worst_rms_error(const Matrix& x) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double worst = 0;
  for (std::size_t i = 0; i < host.extent(0); ++i) {
    double squares = 0;
    for (std::size_t j = 0; j < host.extent(1); ++j) {
      squares += double(host(i, j)) * host(i, j);
    }
    worst =
        std::fmax(worst, std::fabs(std::sqrt(squares / host.extent(1)) - 1));
  }
  return worst;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int tokens = 16, hidden = 4096, layers = 4;
  const auto streams = two_instances();
  Kokkos::View<float*, Space> weight("weight", hidden);
  Kokkos::deep_copy(weight, 1.0f);
  std::vector<Matrix> x, residual;
  for (int s = 0; s < 2; ++s) {
    x.emplace_back("x", tokens, hidden);
    residual.emplace_back("residual", tokens, hidden);  // starts at 0
    Kokkos::deep_copy(streams[s], x[s], 1.0f + s);      // the embeddings
  }
  bool ok = true;
  for (int layer = 0; layer < 2 * layers; ++layer) {  // attention, then MLP
    for (int s = 0; s < 2; ++s) {
      sublayer(streams[s], x[s]);
      KokkosRMSNorm::add_rms_norm(streams[s], x[s], residual[s], residual[s],
                                  weight, x[s], 1e-6);
    }
    for (int s = 0; s < 2; ++s) {
      streams[s].fence();
      // float sums of 4096 squares: well within 1e-4 of the exact norm.
      ok = ok && worst_rms_error(x[s]) < 1e-4;
    }
  }
  std::printf("%s\n", ok ? "True" : "False");
  return ok ? 0 : 1;
}
