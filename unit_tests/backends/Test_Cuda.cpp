#include <limits>

#include <cuda_runtime.h>

#include "Test_AllSuites.hpp"

namespace KokkosRMSNorm::Test {

KOKKOSRMSNORM_INSTANTIATE_TESTS(Cuda, Kokkos::Cuda)

// A call can be captured into a CUDA graph on the instance's stream, which
// fails if it synchronizes, allocates or copies to the host; the replayed
// graph computes the right result.
TEST(Cuda, CapturedIntoGraph) {
  using Matrix = Kokkos::View<float**, Kokkos::CudaSpace>;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    const Kokkos::Cuda space(stream);
    for (auto [rows, n] : {std::pair<std::size_t, std::size_t>{64, 256},
                           {1, 4096},
                           {16, 65536}}) {
      Matrix x("x", rows, n), y("y", rows, n);
      Kokkos::View<float*, Kokkos::CudaSpace> weight("weight", n);
      Testing::fill_uniform(x, 11);
      Testing::fill_uniform(weight, 12);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      Kokkos::fence();

      cudaGraph_t graph;
      cudaGraphExec_t exec;
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
                cudaSuccess);
      rms_norm(space, x, weight, y, 1e-6);
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);

      expect_reference_result(
          x, weight, y, 1e-6,
          "rows=" + std::to_string(rows) + " N=" + std::to_string(n));
    }
  }
  cudaStreamDestroy(stream);
}

}  // namespace KokkosRMSNorm::Test
