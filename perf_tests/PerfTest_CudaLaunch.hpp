// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP
#define KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP

// CUDA only: the raw launch cost that tiny shapes are judged against, and a
// call's cost under CUDA-graph replay.

#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "PerfTest_Benchmarks.hpp"

namespace KokkosRMSNorm::PerfTest {

__global__ void empty_kernel() {}

// A minimal hand-written rms_norm of a row a block, Values values a thread
// (rows of blockDim.x x Values), loaded and stored 16 bytes at a time, vector k
// of thread t at k * blockDim.x + t so that every load of a warp is coalesced:
// what a kernel of rms_norm's launch shape takes with nothing but the loads,
// the sum over the block, the scaling and the stores -- the floor our body is
// judged against (log 121).
template <class T, int Values>
__global__ void lean_rms_norm(const T* x, const T* weight, T* y, float eps) {
  static_assert(Values * sizeof(T) % 16 == 0, "whole 16-byte vectors a thread");
  constexpr int vectors = Values * sizeof(T) / 16;
  constexpr int values_a_vector = 16 / sizeof(T);
  const std::size_t n = std::size_t(blockDim.x) * Values;
  const auto* x_row = reinterpret_cast<const uint4*>(x + blockIdx.x * n);
  const auto* weight_row = reinterpret_cast<const uint4*>(weight);
  auto* y_row = reinterpret_cast<uint4*>(y + blockIdx.x * n);
  T values[Values], weights[Values];
  for (int k = 0; k < vectors; ++k) {
    const uint4 value = x_row[k * blockDim.x + threadIdx.x];
    const uint4 w = weight_row[k * blockDim.x + threadIdx.x];
    memcpy(&values[k * values_a_vector], &value, 16);
    memcpy(&weights[k * values_a_vector], &w, 16);
  }
  float sum = 0.0f;
  for (int k = 0; k < Values; ++k) {
    sum += float(values[k]) * float(values[k]);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  }
  __shared__ float warp_sums[32];
  if (threadIdx.x % 32 == 0) {
    warp_sums[threadIdx.x / 32] = sum;
  }
  __syncthreads();
  float total = 0.0f;
  for (unsigned warp = 0; warp < blockDim.x / 32; ++warp) {
    total += warp_sums[warp];
  }
  const float rstd = rsqrtf(total / float(n) + eps);
  for (int k = 0; k < Values; ++k) {
    values[k] = T(float(values[k]) * rstd * float(weights[k]));
  }
  // Each vector is assembled in a register and stored whole: a memcpy into y
  // itself, whose alignment nvcc cannot see, is stored byte by byte (log 122).
  for (int k = 0; k < vectors; ++k) {
    uint4 vector;
    memcpy(&vector, &values[k * values_a_vector], 16);
    y_row[k * blockDim.x + threadIdx.x] = vector;
  }
}

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " +
                             cudaGetErrorString(status));
  }
}

inline void register_cuda_empty_kernel(double copy_ceiling_gbps) {
  configure(benchmark::RegisterBenchmark(
      "cuda_empty_kernel", [=](benchmark::State& state) {
        const Kokkos::Cuda space;
        const cudaStream_t stream = space.cuda_stream();
        time_calls(state, space, 256, 0, true, copy_ceiling_gbps,
                   [&](int) { empty_kernel<<<1, 32, 0, stream>>>(); });
        check(cudaGetLastError(), "empty_kernel");
      }));
}

// The call make_call() returns, call(space, c), made for c = 0 ..
// calls_per_graph - 1 into one CUDA graph on the instance's stream (after
// one warm-up call, in which a workspace grows), the graph replayed back to
// back, `launches` times per timed iteration: a call's cost once launch
// overhead is amortized, as in an application that captures its whole step.
template <class MakeCall>
void register_graph_replay(const std::string& name, std::size_t bytes,
                           double copy_ceiling_gbps, int calls_per_graph,
                           int launches, bool cached, MakeCall make_call) {
  configure(
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const auto call = make_call();
        // Capture needs a stream of its own, not the legacy default stream.
        cudaStream_t stream;
        check(cudaStreamCreate(&stream), "cudaStreamCreate");
        const Kokkos::Cuda space(stream);
        call(space, 0);
        space.fence();
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
              "cudaStreamBeginCapture");
        for (int c = 0; c < calls_per_graph; ++c) {
          call(space, c);
        }
        check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        time_calls(
            state, space, launches, bytes, cached, copy_ceiling_gbps,
            [&](int) { check(cudaGraphLaunch(exec, stream), "launch"); },
            calls_per_graph);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);
      }));
}

// 64 calls a graph, 16 graphs an iteration, on L2-resident buffers.
template <class MakeCall>
void register_tiny_graph_replay(const std::string& name, std::size_t bytes,
                                double copy_ceiling_gbps, MakeCall make_call) {
  register_graph_replay(name, bytes, copy_ceiling_gbps, 64, 16, true,
                        make_call);
}

// rms_norm under graph replay, and the floors it is judged against: the
// empty raw kernel and an empty kernel of rms_norm's TeamPolicy.
template <class T>
void register_graph_replays(const Shape& shape, double copy_ceiling_gbps) {
  register_tiny_graph_replay(
      benchmark_name<T>("graph_replay/kokkosrmsnorm", shape),
      bytes_per_call<T>(shape), copy_ceiling_gbps, [shape] {
        return [buffers = std::make_shared<Buffers<T>>(shape, 1)](
                   const Kokkos::Cuda& space, int) {
          rms_norm(space, buffers->x[0], buffers->weight, buffers->y[0], eps);
        };
      });
  register_tiny_graph_replay(
      benchmark_name<T>("graph_replay/launch_floor", shape), 0,
      copy_ceiling_gbps, [shape] {
        return [shape](const Kokkos::Cuda& space, int) {
          Kokkos::parallel_for("KokkosRMSNorm::launch_floor",
                               launch_floor_policy<T>(space, shape),
                               EmptyTeamKernel{});
        };
      });
}

inline void register_graph_replay_empty_kernel(double copy_ceiling_gbps) {
  register_tiny_graph_replay(
      "graph_replay/cuda_empty_kernel", 0, copy_ceiling_gbps, [] {
        return [](const Kokkos::Cuda& space, int) {
          empty_kernel<<<1, 32, 0, space.cuda_stream()>>>();
        };
      });
}

// rms_norm (with a workspace) and the copy of the shape, one sweep over the
// rotating buffers a graph: timed as the harness times calls, without the
// gaps between launches, as compare_torch.py times torch.compile.
template <class T>
void register_rotating_graph_replays(const Shape& shape,
                                     double copy_ceiling_gbps) {
  const std::size_t bytes = bytes_per_call<T>(shape);
  const Rotation rotation = rotation_for(bytes);
  // call(space, buffers, workspace, c) makes call c of a sweep; the buffers
  // and the workspace live while the benchmark runs.
  const auto register_one = [&](const std::string& impl, auto call) {
    register_graph_replay(
        benchmark_name<T>("graph_rotating/" + impl, shape), bytes,
        copy_ceiling_gbps, rotation.copies, 1, rotation.cached, [=] {
          return
              [call,
               buffers = std::make_shared<Buffers<T>>(shape, rotation.copies),
               workspace = std::make_shared<Workspace<Kokkos::Cuda>>()](
                  const Kokkos::Cuda& space, int c) {
                call(space, *buffers, *workspace, c);
              };
        });
  };
  register_one("kokkosrmsnorm", [](const Kokkos::Cuda& space,
                                   const Buffers<T>& buffers,
                                   Workspace<Kokkos::Cuda>& workspace, int c) {
    rms_norm(space, buffers.x[c], buffers.weight, buffers.y[c], eps, workspace);
  });
  register_one("copy", [](const Kokkos::Cuda& space, const Buffers<T>& buffers,
                          Workspace<Kokkos::Cuda>&, int c) {
    Kokkos::deep_copy(space, buffers.y[c], buffers.x[c]);
  });
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
