// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_DECODE_HPP
#define KOKKOSRMSNORM_PERFTEST_DECODE_HPP

// Decode latency ([llm]): the calls of a serving engine's decode step, 1 to
// 256 rows of 2048 to 8192 values (rms_norm, and vLLM's in-place
// add_rms_norm), on the same L2-resident buffers call after call: back to
// back on a stream (256 calls, one fence), and on CUDA 64 calls captured
// in a graph and replayed. Beside them, timed alike, the floors a call is
// judged against: an empty TeamPolicy of rms_norm's launch shape (a Kokkos
// launch) and, on CUDA, an empty raw kernel and a lean hand-written rms_norm
// of rms_norm's launch shape (cuda_lean_rms_norm). compare_decode.py times
// torch.compile of the same calls alike. Names:
// decode[_graph]/<impl>/<dtype>/M:<rows>/N:<n>, impl rms_norm,
// add_rms_norm_in_place (each also on Views whose type fixes N, suffixed
// _static_n), kokkos_launch_floor or cuda_lean_rms_norm;
// decode[_graph]/cuda_empty_kernel.

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#include <KokkosRMSNorm.hpp>

#include "PerfTest_Benchmarks.hpp"
#include "PerfTest_Harness.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
#include "PerfTest_CudaLaunch.hpp"
#endif

namespace KokkosRMSNorm::PerfTest {

inline std::vector<Shape> decode_shapes(bool smoke) {
  if (smoke) {
    return {{1, 2048}, {64, 4096}};
  }
  std::vector<Shape> shapes;
  for (const std::size_t n : {2048, 4096, 8192}) {
    for (const std::size_t rows : {1, 4, 16, 64, 256}) {
      shapes.push_back({rows, n});
    }
  }
  return shapes;
}

// Calls f(std::integral_constant<std::size_t, n>()) where n is a row length
// of decode_shapes.
template <class F>
void with_decode_row_length(std::size_t n, const F& f) {
  switch (n) {
    case 2048:
      return f(std::integral_constant<std::size_t, 2048>());
    case 4096:
      return f(std::integral_constant<std::size_t, 4096>());
    case 8192:
      return f(std::integral_constant<std::size_t, 8192>());
    default:
      return;
  }
}

// Registers decode/<impl>/... and, on CUDA, decode_graph/<impl>/...: the
// call that make_call() returns, call(space), moving `bytes`.
template <class MakeCall>
void register_decode_call(const std::string& name, std::size_t bytes,
                          double copy_ceiling_gbps, MakeCall make_call) {
  configure(benchmark::RegisterBenchmark(
      ("decode/" + name).c_str(), [=](benchmark::State& state) {
        const auto call = make_call();
        time_calls(state, Space(), 256, bytes, true, copy_ceiling_gbps,
                   [&](int) { call(Space()); });
      }));
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
  register_tiny_graph_replay(
      "decode_graph/" + name, bytes, copy_ceiling_gbps, [=] {
        return [call = make_call()](const Kokkos::Cuda& space, int) {
          call(space);
        };
      });
#endif
}

template <class T>
void register_decode(const Shape& shape, double copy_ceiling_gbps) {
  using Call = std::function<void(const Space&)>;
  const auto buffers_and_workspace = [shape] {
    return std::make_pair(std::make_shared<Buffers<T>>(shape, 1),
                          std::make_shared<Workspace<Space>>());
  };
  // rms_norm, and add_rms_norm in place (x and the residual read, the sum
  // written over the residual and y over x), on the buffers' Views as
  // as_rows(view) gives them.
  const auto register_entries = [&](const std::string& suffix, auto as_rows) {
    register_decode_call(
        benchmark_name<T>("rms_norm" + suffix, shape), bytes_per_call<T>(shape),
        copy_ceiling_gbps, [=] {
          const auto s = buffers_and_workspace();
          return Call([s, x = as_rows(s.first->x[0]),
                       y = as_rows(s.first->y[0])](const Space& space) {
            rms_norm(space, x, s.first->weight, y, eps, *s.second);
          });
        });
    register_decode_call(
        benchmark_name<T>("add_rms_norm_in_place" + suffix, shape),
        bytes_per_call<T>(shape, 4), copy_ceiling_gbps, [=] {
          const auto s = buffers_and_workspace();
          return Call([s, x = as_rows(s.first->x[0]),
                       residual = as_rows(s.first->y[0])](const Space& space) {
            add_rms_norm(space, x, residual, residual, s.first->weight, x, eps,
                         *s.second);
          });
        });
  };
  register_entries("", [](const auto& view) { return view; });
  // The same Views typed with N as a static extent (View<T*[N]>), which
  // get kernels specialised on it: suffix _static_n.
  with_decode_row_length(shape.n, [&](auto row_length) {
    using Rows =
        Kokkos::View<T * [decltype(row_length)::value], Kokkos::LayoutRight,
                     Space, Kokkos::MemoryUnmanaged>;
    register_entries("_static_n", [](const auto& view) {
      return Rows(view.data(), view.extent(0));
    });
  });
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
  // lean_rms_norm in rms_norm's launch shape, where it has 8 or 16 values a
  // thread (every decode shape on an NVIDIA GPU).
  const auto team = launch_floor_policy<T>(Space(), shape);
  const std::size_t values = shape.n / team.team_size();
  const auto register_lean = [&](auto values_a_thread) {
    constexpr int Values = decltype(values_a_thread)::value;
    register_decode_call(
        benchmark_name<T>("cuda_lean_rms_norm", shape),
        bytes_per_call<T>(shape), copy_ceiling_gbps, [=] {
          const auto s = buffers_and_workspace();
          return Call([s, team](const Space& space) {
            lean_rms_norm<T, Values><<<team.league_size(), team.team_size(), 0,
                                       space.cuda_stream()>>>(
                s.first->x[0].data(), s.first->weight.data(),
                s.first->y[0].data(), float(eps));
          });
        });
  };
  if (team.impl_vector_length() == 1 && team.team_size() * values == shape.n) {
    if (values == 8) {
      register_lean(std::integral_constant<int, 8>());
    } else if (values == 16) {
      register_lean(std::integral_constant<int, 16>());
    }
  }
#endif
  register_decode_call(benchmark_name<T>("kokkos_launch_floor", shape), 0,
                       copy_ceiling_gbps, [=] {
                         return Call([shape](const Space& space) {
                           Kokkos::parallel_for(
                               "KokkosRMSNorm::launch_floor",
                               launch_floor_policy<T>(space, shape),
                               EmptyTeamKernel{});
                         });
                       });
}

inline void register_decode_floors(double copy_ceiling_gbps) {
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
  register_decode_call("cuda_empty_kernel", 0, copy_ceiling_gbps, [] {
    return [](const Kokkos::Cuda& space) {
      empty_kernel<<<1, 32, 0, space.cuda_stream()>>>();
    };
  });
#else
  (void)copy_ceiling_gbps;
#endif
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
