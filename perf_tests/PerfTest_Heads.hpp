// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_HEADS_HPP
#define KOKKOSRMSNORM_PERFTEST_HEADS_HPP

// QK-norm ([llm]): q's heads normalized where they lie in a fused qkv
// buffer of Qwen3-8B's layout (32 q heads, 8 k and 8 v heads of head_dim
// values a token), in place and into a contiguous (tokens, heads,
// head_dim) View, beside a copy of the bytes touched (q read and written)
// and the norm of the same rows held contiguously (rank 2). Names:
// heads_<impl>/<dtype>/M:<tokens>/N:<head_dim>; compare_heads.py times
// torch.compile on the same strided views.

#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include <KokkosRMSNorm.hpp>

#include "PerfTest_Benchmarks.hpp"
#include "PerfTest_Harness.hpp"

namespace KokkosRMSNorm::PerfTest {

inline constexpr std::size_t q_heads = 32, kv_heads = 8;

template <class T>
using HeadsView =
    Kokkos::View<T***, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged>;

// q's heads in a fused buffer (tokens, (q + 2 kv heads) * head_dim).
template <class T>
HeadsView<T> q_heads_of(const typename Buffers<T>::Matrix& qkv,
                        std::size_t head_dim) {
  return HeadsView<T>(
      qkv.data(), Kokkos::LayoutStride(qkv.extent(0), qkv.stride(0), q_heads,
                                       head_dim, head_dim, 1));
}

// The first tokens x q_heads x head_dim values of `buffer`, contiguous.
template <class T>
HeadsView<T> contiguous_heads(const typename Buffers<T>::Matrix& buffer,
                              std::size_t tokens, std::size_t head_dim) {
  return HeadsView<T>(buffer.data(),
                      Kokkos::LayoutStride(tokens, q_heads * head_dim, q_heads,
                                           head_dim, head_dim, 1));
}

// Registers `impl` over rotating fused buffers: call(qkv, output, weight)
// with the weight of head_dim values.
template <class T, class Call>
void register_heads_call(const char* impl, std::size_t tokens,
                         std::size_t head_dim, double copy_ceiling_gbps,
                         Call call) {
  const Shape fused{tokens, (q_heads + 2 * kv_heads) * head_dim};
  const std::size_t bytes = 2 * tokens * q_heads * head_dim * sizeof(T);
  configure(benchmark::RegisterBenchmark(
      benchmark_name<T>(impl, {tokens, head_dim}).c_str(),
      [=](benchmark::State& state) {
        const Rotation rotation =
            rotation_for(fused.rows * fused.n * sizeof(T));
        const Buffers<T>& buffers = buffers_for<T>(fused, rotation.copies);
        const auto weight = Kokkos::subview(
            buffers.weight, Kokkos::make_pair(0, int(head_dim)));
        time_calls(state, Space(), rotation.copies, bytes, rotation.cached,
                   copy_ceiling_gbps,
                   [&](int c) { call(buffers.x[c], buffers.y[c], weight); });
      }));
}

template <class T>
void register_heads(std::size_t tokens, std::size_t head_dim,
                    double copy_ceiling_gbps) {
  register_heads_call<T>("heads_in_place", tokens, head_dim, copy_ceiling_gbps,
                         [=](const auto& qkv, const auto&, const auto& weight) {
                           const auto q = q_heads_of<T>(qkv, head_dim);
                           rms_norm(Space(), q, weight, q, eps);
                         });
  register_heads_call<T>(
      "heads_out_of_place", tokens, head_dim, copy_ceiling_gbps,
      [=](const auto& qkv, const auto& out, const auto& weight) {
        rms_norm(Space(), q_heads_of<T>(qkv, head_dim), weight,
                 contiguous_heads<T>(out, tokens, head_dim), eps);
      });
  register_heads_call<T>(
      "heads_contiguous", tokens, head_dim, copy_ceiling_gbps,
      [=](const auto& qkv, const auto& out, const auto& weight) {
        const Kokkos::View<T**, Kokkos::LayoutRight, Space,
                           Kokkos::MemoryUnmanaged>
            x(qkv.data(), tokens * q_heads, head_dim),
            y(out.data(), tokens * q_heads, head_dim);
        rms_norm(Space(), x, weight, y, eps);
      });
  register_copy_of_bytes<T>(
      benchmark_name<T>("heads_copy_bytes", {tokens, head_dim}),
      {tokens, (q_heads + 2 * kv_heads) * head_dim},
      2 * tokens * q_heads * head_dim * sizeof(T), copy_ceiling_gbps);
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
