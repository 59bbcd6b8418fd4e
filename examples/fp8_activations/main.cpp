// SPDX-License-Identifier: BSD-3-Clause
// fp8_activations: the norm before an FP8 matrix multiply, as FP8 serving
// runs it. The residual stream is added and normalized, and the result is
// stored as FP8 E4M3 codes with a scale a token (vLLM's
// rms_norm_dynamic_per_token_quant), which the next layer's FP8 GEMM reads
// with its scales. Checks, on the host, that each code times its row's scale
// is the unquantized norm within E4M3's precision (half a step: 2^-4 of the
// value, or 2^-10 of the scale near zero) and that each row's largest
// magnitude takes the largest code, 448; prints True or False.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm.hpp>

using Space = Kokkos::DefaultExecutionSpace;

// The value of an E4M3 code: 2^(e - 7) * (1 + m / 8), or m * 2^-9 where e
// is 0; NaN at 0x7f.
double e4m3_value(std::uint8_t code) {
  const unsigned e = (code >> 3) & 15u, m = code & 7u;
  const double magnitude = (code & 0x7f) == 0x7f ? NAN
                           : e == 0              ? std::ldexp(m, -9)
                                    : std::ldexp(1.0 + m / 8.0, int(e) - 7);
  return code & 0x80 ? -magnitude : magnitude;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int tokens = 32, hidden = 4096;
  const Space space;
  Kokkos::View<float**, Space> x("x", tokens, hidden),
      residual("residual", tokens, hidden), normed("normed", tokens, hidden);
  Kokkos::View<float*, Space> weight("weight", hidden);
  Kokkos::parallel_for(
      "fp8_activations::inputs",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {0, 0},
                                                    {tokens, hidden}),
      KOKKOS_LAMBDA(int i, int j) {
        // Spread-out values in [-1, 1] without device math functions.
        x(i, j) = float((37 * j + 11 * i) % 101) / 50 - 1;
        residual(i, j) = float((13 * j + 29 * i) % 67) / 66 - 0.5f;
        if (i == 0) {
          weight(j) = 1 + float(j % 9) / 32;
        }
      });
  // The unquantized norm of the same sum, for the check.
  Kokkos::View<float**, Space> sum("sum", tokens, hidden);
  KokkosRMSNorm::add_rms_norm(space, x, residual, sum, weight, normed, 1e-6);

  Kokkos::View<std::uint8_t**, Space> codes("codes", tokens, hidden);
  Kokkos::View<float*, Space> scales("scales", tokens);
  const float minimum = 1.0f / (448 * 512);  // vLLM's least FP8 scale
  KokkosRMSNorm::add_rms_norm_quantized(
      space, x, residual, residual, weight, codes, 1e-6,
      KokkosRMSNorm::fp8_e4m3_per_row(scales, minimum));
  space.fence();

  const auto host_codes =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), codes);
  const auto host_scales =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scales);
  const auto host_normed =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), normed);
  bool ok = true;
  for (int i = 0; i < tokens; ++i) {
    const double scale = host_scales(i);
    bool reaches_largest = false;
    for (int j = 0; j < hidden; ++j) {
      const double dequantized = e4m3_value(host_codes(i, j)) * scale;
      const double exact = host_normed(i, j);
      ok = ok && std::fabs(dequantized - exact) <=
                     std::fmax(std::fabs(exact) / 16, scale / 1024);
      reaches_largest = reaches_largest || (host_codes(i, j) & 0x7f) == 0x7e;
    }
    ok = ok && reaches_largest;
  }
  std::printf("%s\n", ok ? "True" : "False");
  return ok ? 0 : 1;
}
