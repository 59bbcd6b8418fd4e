// SPDX-License-Identifier: BSD-3-Clause
// qk_norm: Qwen3-style QK-norm, each head of q and of k normalized over its
// head_dim values where it lies, inside the fused qkv projection (tokens x
// (q_heads + 2 kv_heads) x head_dim), in place and without a copy: q and k
// are rank-3 Views (tokens, heads, head_dim) of strides (the qkv row
// pitch, head_dim, 1). Checks every head against a host computation in
// double and that v is untouched; prints True or False.

#include <cmath>
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm.hpp>

using Space = Kokkos::DefaultExecutionSpace;
using Heads = Kokkos::View<float***, Kokkos::LayoutStride, Space,
                           Kokkos::MemoryUnmanaged>;

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int tokens = 16, q_heads = 8, kv_heads = 2, head_dim = 128;
  const int pitch = (q_heads + 2 * kv_heads) * head_dim;
  const double eps = 1e-6;
  const Space space;
  // LayoutRight: a token's heads side by side (a GPU's default is
  // LayoutLeft).
  Kokkos::View<float**, Kokkos::LayoutRight, Space> qkv("qkv", tokens, pitch);
  Kokkos::View<float*, Space> q_weight("q_weight", head_dim),
      k_weight("k_weight", head_dim);
  Kokkos::parallel_for(
      "qk_norm::inputs",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {0, 0},
                                                    {tokens, pitch}),
      KOKKOS_LAMBDA(int t, int j) {
        qkv(t, j) = float((37 * j + 11 * t) % 101) / 50 - 1;
        if (t == 0 && j < head_dim) {
          q_weight(j) = 1 + float(j % 9) / 32;
          k_weight(j) = 1 - float(j % 7) / 32;
        }
      });
  // A copy even where qkv is on the host: it is normalized in place.
  const auto before = Kokkos::create_mirror(qkv);
  Kokkos::deep_copy(before, qkv);

  // q: the first q_heads heads of each row, k: the next kv_heads.
  const Heads q(qkv.data(), Kokkos::LayoutStride(tokens, pitch, q_heads,
                                                 head_dim, head_dim, 1));
  const Heads k(
      qkv.data() + q_heads * head_dim,
      Kokkos::LayoutStride(tokens, pitch, kv_heads, head_dim, head_dim, 1));
  KokkosRMSNorm::rms_norm(space, q, q_weight, q, eps);
  KokkosRMSNorm::rms_norm(space, k, k_weight, k, eps);
  space.fence();

  const auto after =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), qkv);
  const auto host_q_weight =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), q_weight);
  const auto host_k_weight =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k_weight);
  bool ok = true;
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < q_heads + 2 * kv_heads; ++h) {
      const int first = h * head_dim;
      if (h >= q_heads + kv_heads) {  // v: untouched
        for (int j = 0; j < head_dim; ++j) {
          ok = ok && after(t, first + j) == before(t, first + j);
        }
        continue;
      }
      const auto& weight = h < q_heads ? host_q_weight : host_k_weight;
      double sum_of_squares = 0;
      for (int j = 0; j < head_dim; ++j) {
        sum_of_squares += double(before(t, first + j)) * before(t, first + j);
      }
      const double rstd = 1 / std::sqrt(sum_of_squares / head_dim + eps);
      for (int j = 0; j < head_dim; ++j) {
        const double exact = before(t, first + j) * rstd * weight(j);
        ok = ok && std::fabs(after(t, first + j) - exact) <=
                       1e-5 * std::fabs(exact) + 1e-30;
      }
    }
  }
  std::printf("%s\n", ok ? "True" : "False");
  return ok ? 0 : 1;
}
