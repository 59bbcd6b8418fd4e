// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_QUANTIZED_HPP
#define KOKKOSRMSNORM_PERFTEST_QUANTIZED_HPP

// The quantized outputs ([llm]): rms_norm_quantized with FP8 E4M3 codes
// (one static scale, a scale a row), int8 codes (a scale a row), and
// add_rms_norm_quantized in place with FP8 codes a scale a row, each beside
// a copy of the same bytes (x and the residual read, the sum written, one
// byte a value written), the ceiling the issue sets them against. Names:
// <impl>/<dtype>/M:<rows>/N:<n>; compare_quantized.py times torch.compile
// of the same formulas on the same shapes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <KokkosRMSNorm.hpp>

#include "PerfTest_Benchmarks.hpp"
#include "PerfTest_Harness.hpp"

namespace KokkosRMSNorm::PerfTest {

// The rotating codes and scales of a shape, beside Buffers<T>'s x and y.
struct QuantizedOutputs {
  std::vector<Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Space>> codes;
  std::vector<Kokkos::View<float*, Space>> scales;

  QuantizedOutputs(const Shape& shape, int copies) {
    for (int c = 0; c < copies; ++c) {
      codes.emplace_back("codes", shape.rows, shape.n);
      scales.emplace_back("scales", shape.rows);
    }
  }
};

// Registers `name`, moving `bytes` a call, timed back to back over
// rotating buffers: call(buffers, outputs, c).
template <class T, class Call>
void register_quantized_call(const std::string& name, const Shape& shape,
                             std::size_t bytes, double copy_ceiling_gbps,
                             Call call) {
  configure(
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const Rotation rotation = rotation_for(bytes);
        const Buffers<T>& buffers = buffers_for<T>(shape, rotation.copies);
        const auto outputs =
            std::make_shared<QuantizedOutputs>(shape, rotation.copies);
        time_calls(state, Space(), rotation.copies, bytes, rotation.cached,
                   copy_ceiling_gbps,
                   [&](int c) { call(buffers, *outputs, c); });
      }));
}

template <class T>
void register_quantized(const Shape& shape, double copy_ceiling_gbps) {
  const std::size_t values = shape.rows * shape.n;
  // x read, codes and a scale a row written; the add also reads the
  // residual and writes the sum over it.
  const std::size_t norm_bytes = values * (sizeof(T) + 1) + shape.rows * 4;
  const std::size_t add_bytes = values * (3 * sizeof(T) + 1) + shape.rows * 4;
  const auto name = [&](const char* impl) {
    return benchmark_name<T>(impl, shape);
  };
  constexpr float minimum = 1.0f / (448 * 512);
  register_quantized_call<T>(
      name("fp8_static"), shape, norm_bytes, copy_ceiling_gbps,
      [](const Buffers<T>& b, const QuantizedOutputs& out, int c) {
        rms_norm_quantized(Space(), b.x[c], b.weight, out.codes[c], eps,
                           fp8_e4m3(0.01f));
      });
  register_quantized_call<T>(
      name("fp8_per_row"), shape, norm_bytes, copy_ceiling_gbps,
      [](const Buffers<T>& b, const QuantizedOutputs& out, int c) {
        rms_norm_quantized(Space(), b.x[c], b.weight, out.codes[c], eps,
                           fp8_e4m3_per_row(out.scales[c], minimum));
      });
  register_quantized_call<T>(
      name("int8_per_row"), shape, norm_bytes, copy_ceiling_gbps,
      [](const Buffers<T>& b, const QuantizedOutputs& out, int c) {
        rms_norm_quantized(Space(), b.x[c], b.weight, out.codes[c], eps,
                           int8_per_row(out.scales[c], minimum));
      });
  register_copy_of_bytes<T>(name("copy_norm_bytes"), shape, norm_bytes,
                            copy_ceiling_gbps);
  register_quantized_call<T>(
      name("add_fp8_per_row"), shape, add_bytes, copy_ceiling_gbps,
      [](const Buffers<T>& b, const QuantizedOutputs& out, int c) {
        add_rms_norm_quantized(Space(), b.x[c], b.y[c], b.y[c], b.weight,
                               out.codes[c], eps,
                               fp8_e4m3_per_row(out.scales[c], minimum));
      });
  register_copy_of_bytes<T>(name("copy_add_bytes"), shape, add_bytes,
                            copy_ceiling_gbps);
  // The unquantized norm of the same rows, for reference.
  register_rms_norm<T>(shape, copy_ceiling_gbps);
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
