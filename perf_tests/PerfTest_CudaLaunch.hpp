#ifndef KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP
#define KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP

// CUDA only: the raw launch cost that tiny shapes are judged against, and a
// call's cost under CUDA-graph replay.

#include <memory>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "PerfTest_Benchmarks.hpp"

namespace KokkosRMSNorm::PerfTest {

__global__ void empty_kernel() {}

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

// The call make_call() returns, call(space), made 64 times into one CUDA
// graph on the instance's stream, the graph replayed back to back: a call's
// cost once launch overhead is amortized, as in an application that
// captures its whole step.
template <class MakeCall>
void register_graph_replay(const std::string& name, std::size_t bytes,
                           double copy_ceiling_gbps, MakeCall make_call) {
  configure(
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        constexpr int calls_per_graph = 64;
        const auto call = make_call();
        // Capture needs a stream of its own, not the legacy default stream.
        cudaStream_t stream;
        check(cudaStreamCreate(&stream), "cudaStreamCreate");
        const Kokkos::Cuda space(stream);
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
              "cudaStreamBeginCapture");
        for (int c = 0; c < calls_per_graph; ++c) {
          call(space);
        }
        check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        time_calls(
            state, space, 16, bytes, true, copy_ceiling_gbps,
            [&](int) { check(cudaGraphLaunch(exec, stream), "launch"); },
            calls_per_graph);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);
      }));
}

// rms_norm under graph replay, and the floors it is judged against: the
// empty raw kernel and an empty kernel of rms_norm's TeamPolicy.
template <class T>
void register_graph_replays(const Shape& shape, double copy_ceiling_gbps) {
  register_graph_replay(
      benchmark_name<T>("graph_replay/kokkosrmsnorm", shape),
      bytes_per_call<T>(shape), copy_ceiling_gbps, [shape] {
        return [buffers = std::make_shared<Buffers<T>>(shape, 1)](
                   const Kokkos::Cuda& space) {
          rms_norm(space, buffers->x[0], buffers->weight, buffers->y[0], eps);
        };
      });
  register_graph_replay(benchmark_name<T>("graph_replay/launch_floor", shape),
                        0, copy_ceiling_gbps, [shape] {
                          return [shape](const Kokkos::Cuda& space) {
                            Kokkos::parallel_for(
                                "KokkosRMSNorm::launch_floor",
                                launch_floor_policy<T>(space, shape),
                                EmptyTeamKernel{});
                          };
                        });
}

inline void register_graph_replay_empty_kernel(double copy_ceiling_gbps) {
  register_graph_replay("graph_replay/cuda_empty_kernel", 0, copy_ceiling_gbps,
                        [] {
                          return [](const Kokkos::Cuda& space) {
                            empty_kernel<<<1, 32, 0, space.cuda_stream()>>>();
                          };
                        });
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
