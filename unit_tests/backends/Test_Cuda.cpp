// SPDX-License-Identifier: BSD-3-Clause
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>

#include "Test_Cuda.hpp"

namespace KokkosRMSNorm::Test {

// fp16 data near its maximum, 65504: the squares (about 4e9) are far inside
// float's range, so the float sum of squares does not overflow.
TEST(Cuda, HalfNearItsMaximum) {
  using T = Kokkos::Experimental::half_t;
  const std::size_t rows = 16, n = 4096;
  Kokkos::View<T**, Kokkos::CudaSpace> x("x", rows, n), y("y", rows, n);
  Kokkos::View<T*, Kokkos::CudaSpace> weight("weight", n);
  Testing::fill_uniform(x, 21, 65000.0);
  Testing::fill_uniform(weight, 22);
  Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
  rms_norm(x, weight, y, 1e-6);
  Kokkos::fence();
  expect_reference_result(x, weight, y, 1e-6, "|x| up to 65000");
}

// Captures call() into a CUDA graph on `stream`, which fails if the call
// synchronizes, allocates or copies to the host, and replays the graph.
template <class Call>
void capture_and_replay(cudaStream_t stream, const Call& call) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
            cudaSuccess);
  call();
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

template <class View>
std::vector<typename View::non_const_value_type> host_values(const View& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Testing::contiguous_copy(view));
  return {host.data(), host.data() + host.size()};
}

// Every entry point can be captured into a CUDA graph on the instance's
// stream (the backward pass once its workspace has grown to the shape), and
// the replayed graph computes the right result.
TEST(Cuda, CapturedIntoGraph) {
  using Matrix = Kokkos::View<float**, Kokkos::CudaSpace>;
  using Vector = Kokkos::View<float*, Kokkos::CudaSpace>;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    const Kokkos::Cuda space(stream);
    for (auto [rows, n] : {std::pair<std::size_t, std::size_t>{64, 256},
                           {1, 4096},
                           {16, 65536}}) {
      Matrix x("x", rows, n), y("y", rows, n);
      Vector weight("weight", n);
      Testing::fill_uniform(x, 11);
      Testing::fill_uniform(weight, 12);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      Kokkos::fence();
      const std::string what =
          "rows=" + std::to_string(rows) + " N=" + std::to_string(n);
      capture_and_replay(stream, [&] { rms_norm(space, x, weight, y, 1e-6); });
      expect_reference_result(x, weight, y, 1e-6, what);

      // With a workspace, grown by a first call: 16 x 65536 splits its rows.
      Workspace<Kokkos::Cuda> workspace;
      rms_norm(space, x, weight, y, 1e-6, workspace);
      Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
      Kokkos::fence();
      capture_and_replay(
          stream, [&] { rms_norm(space, x, weight, y, 1e-6, workspace); });
      expect_reference_result(x, weight, y, 1e-6, "workspace, " + what);
    }

    const std::size_t rows = 64, n = 4096;
    Matrix x("x", rows, n), residual("residual", rows, n), sum("sum", rows, n),
        y("y", rows, n), dx("dx", rows, n), graph_dx("graph dx", rows, n);
    Vector weight("weight", n), rstd("rstd", rows), dweight("dweight", n),
        graph_dweight("graph dweight", n);
    Testing::fill_uniform(x, 13);
    Testing::fill_uniform(residual, 14);
    Testing::fill_uniform(weight, 15);
    for (const Matrix& out : {sum, y, graph_dx}) {
      Testing::poison(out, std::numeric_limits<double>::quiet_NaN());
    }
    Testing::poison(graph_dweight, std::numeric_limits<double>::quiet_NaN());
    Kokkos::fence();
    capture_and_replay(stream, [&] {
      add_rms_norm(space, x, residual, sum, weight, y, 1e-6, rstd);
    });
    expect_reference_result(sum, weight, y, 1e-6, "add_rms_norm");

    // dy = y. The first call grows the workspace; the captured call must
    // give the same bits.
    Workspace<Kokkos::Cuda> workspace;
    rms_norm_backward(space, y, sum, weight, rstd, dx, dweight, workspace);
    capture_and_replay(stream, [&] {
      rms_norm_backward(space, y, sum, weight, rstd, graph_dx, graph_dweight,
                        workspace);
    });
    EXPECT_EQ(host_values(graph_dx), host_values(dx));
    EXPECT_EQ(host_values(graph_dweight), host_values(dweight));
  }
  cudaStreamDestroy(stream);
}

// Two execution space instances on two streams run their calls, repeated
// so that they overlap, each with its own workspace: rows of 4096 take a
// team each, rows of 131072 split across 32 teams, each waiting for the
// others of its row while the other stream's kernel holds part of the
// device. Both results are right.
TEST(Cuda, TwoStreams) {
  using Matrix = Kokkos::View<float**, Kokkos::CudaSpace>;
  const auto spaces =
      Kokkos::Experimental::partition_space(Kokkos::Cuda(), 1, 1);
  Workspace<Kokkos::Cuda> workspaces[2];
  for (auto [rows, n] :
       {std::pair<std::size_t, std::size_t>{4096, 4096}, {64, 131072}}) {
    Matrix x0("x0", rows, n), y0("y0", rows, n), x1("x1", rows, n),
        residual1("residual1", rows, n), sum1("sum1", rows, n),
        y1("y1", rows, n);
    Kokkos::View<float*, Kokkos::CudaSpace> weight("weight", n);
    Testing::fill_uniform(x0, 31);
    Testing::fill_uniform(x1, 32);
    Testing::fill_uniform(residual1, 33);
    Testing::fill_uniform(weight, 34);
    for (const Matrix& out : {y0, sum1, y1}) {
      Testing::poison(out, std::numeric_limits<double>::quiet_NaN());
    }
    Kokkos::fence();
    for (int repeat = 0; repeat < 8; ++repeat) {
      rms_norm(spaces[0], x0, weight, y0, 1e-6, workspaces[0]);
      add_rms_norm(spaces[1], x1, residual1, sum1, weight, y1, 1e-6,
                   workspaces[1]);
    }
    spaces[0].fence();
    spaces[1].fence();
    const std::string what = "N=" + std::to_string(n);
    expect_reference_result(x0, weight, y0, 1e-6, "stream 0, " + what);
    expect_reference_result(sum1, weight, y1, 1e-6, "stream 1, " + what);
  }
}

// A hash of each element's index in [-1, 1): distinct values everywhere,
// without a host buffer of the View's size.
template <class Matrix>
struct FillWithIndexHash {
  Matrix x;
  KOKKOS_FUNCTION void operator()(std::size_t i, std::size_t j) const {
    const unsigned hash = unsigned(i * 2654435761u) ^ unsigned(j * 40503u);
    x(i, j) = typename Matrix::value_type(float(hash % 2001) / 1000.0f - 1.0f);
  }
};

// More than 2^31 elements (bf16, 65536 x 40000: 5.2 GB each for x and y),
// so any 32-bit index arithmetic would overflow. Checked on the rows around
// element 2^31 and at both ends. Needs a large GPU: runs only with
// KOKKOSRMSNORM_LARGE_TESTS=1.
TEST(Cuda, MoreThan2To31Elements) {
  if (!std::getenv("KOKKOSRMSNORM_LARGE_TESTS")) {
    GTEST_SKIP() << "set KOKKOSRMSNORM_LARGE_TESTS=1 to run";
  }
  using T = Kokkos::Experimental::bhalf_t;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  const std::size_t rows = 65536, n = 40000;
  Matrix x("x", rows, n), y("y", rows, n);
  Kokkos::View<T*, Kokkos::CudaSpace> weight("weight", n);
  Testing::fill_uniform(weight, 5);
  Kokkos::parallel_for(
      Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>>({0, 0}, {rows, n}),
      FillWithIndexHash<Matrix>{x});
  Kokkos::deep_copy(y, T(std::numeric_limits<float>::quiet_NaN()));
  rms_norm(x, weight, y, 1e-6);
  Kokkos::fence();
  const std::size_t row_of_2_to_31 = (std::size_t(1) << 31) / n;
  for (std::size_t row :
       {std::size_t(0), row_of_2_to_31, row_of_2_to_31 + 1, rows - 1}) {
    const auto one_row = Kokkos::make_pair(row, row + 1);
    expect_reference_result(Kokkos::subview(x, one_row, Kokkos::ALL), weight,
                            Kokkos::subview(y, one_row, Kokkos::ALL), 1e-6,
                            "row " + std::to_string(row));
  }
}

}  // namespace KokkosRMSNorm::Test
