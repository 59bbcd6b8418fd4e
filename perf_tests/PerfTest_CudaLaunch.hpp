#ifndef KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP
#define KOKKOSRMSNORM_PERFTEST_CUDALAUNCH_HPP

// CUDA only: the raw launch cost that tiny shapes are judged against, and a
// call's cost under CUDA-graph replay.

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

// rms_norm called 64 times into one CUDA graph on the instance's stream,
// the graph replayed back to back: a call's cost once launch overhead is
// amortized, as in an application that captures its whole step.
template <class T>
void register_graph_replay(const Shape& shape, double copy_ceiling_gbps) {
  configure(benchmark::RegisterBenchmark(
      benchmark_name<T>("graph_replay/kokkosrmsnorm", shape).c_str(),
      [=](benchmark::State& state) {
        constexpr int calls_per_graph = 64;
        const Buffers<T> buffers(shape, 1);
        // Capture needs a stream of its own, not the legacy default stream.
        cudaStream_t stream;
        check(cudaStreamCreate(&stream), "cudaStreamCreate");
        const Kokkos::Cuda space(stream);
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
              "cudaStreamBeginCapture");
        for (int c = 0; c < calls_per_graph; ++c) {
          rms_norm(space, buffers.x[0], buffers.weight, buffers.y[0], eps);
        }
        check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        time_calls(
            state, space, 16, bytes_per_call<T>(shape), true, copy_ceiling_gbps,
            [&](int) { check(cudaGraphLaunch(exec, stream), "launch"); },
            calls_per_graph);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);
      }));
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
