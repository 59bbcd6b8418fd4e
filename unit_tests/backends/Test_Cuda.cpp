// SPDX-License-Identifier: BSD-3-Clause
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_Testing_Inputs.hpp>

#include "Test_SixteenBit.hpp"

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

// Counts the floats whose FP8 E4M3 code from CudaBackend differs from the
// portable conversion's: each float i beside -i, so that each is converted
// in both places of a pair, as the hardware converts them.
struct E4M3Mismatches {
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& count) const {
    const auto bits = static_cast<std::uint32_t>(i);
    const std::uint32_t negated_bits = bits ^ 0x80000000u;
    float values[2];
    memcpy(&values[0], &bits, sizeof(float));
    memcpy(&values[1], &negated_bits, sizeof(float));
    std::uint8_t codes[2];
    Impl::CudaBackend::e4m3_codes(values, codes);
    count += (codes[0] != Impl::float_to_e4m3_bits(values[0])) +
             (codes[1] != Impl::float_to_e4m3_bits(values[1]));
  }
};

// The conversion to FP8 E4M3 that CUDA kernels use (in hardware from
// compute capability 8.9) gives the portable conversion's bits for every
// float, NaN included, which Test_Quantize.cpp checks against a reference
// on the host.
TEST(Cuda, E4M3MatchesPortable) {
  using Policy =
      Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<std::int64_t>>;
  std::int64_t mismatches = 0;
  Kokkos::parallel_reduce("KokkosRMSNorm::Test::E4M3MatchesPortable",
                          Policy(0, std::int64_t(1) << 32), E4M3Mismatches{},
                          mismatches);
  EXPECT_EQ(mismatches, 0);
}

// Counts the floats v for which CudaBackend's larger of `largest` and |v|
// differs in its bits from the portable one's.
struct LargerMagnitudeMismatches {
  float largest;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& count) const {
    const auto bits = static_cast<std::uint32_t>(i);
    float value;
    memcpy(&value, &bits, sizeof(float));
    const float cuda = Impl::CudaBackend::larger_magnitude(largest, value);
    const float portable =
        Impl::PortableBackend::larger_magnitude(largest, value);
    std::uint32_t cuda_bits, portable_bits;
    memcpy(&cuda_bits, &cuda, sizeof(float));
    memcpy(&portable_bits, &portable, sizeof(float));
    count += cuda_bits != portable_bits;
  }
};

// A row's largest |y| on CUDA (fmaxf, fabsf) is the portable one, bit for
// bit, for every float value (NaN ignored, -0 as 0) and the running
// largest a kernel can hold: 0 or more, never NaN.
TEST(Cuda, LargerMagnitudeMatchesPortable) {
  using Policy =
      Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<std::int64_t>>;
  for (const float largest : {0.0f, std::numeric_limits<float>::denorm_min(),
                              1.0f, 448.0f, std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::infinity()}) {
    std::int64_t mismatches = 0;
    Kokkos::parallel_reduce(
        "KokkosRMSNorm::Test::LargerMagnitudeMatchesPortable",
        Policy(0, std::int64_t(1) << 32), LargerMagnitudeMismatches{largest},
        mismatches);
    EXPECT_EQ(mismatches, 0) << "largest " << largest;
  }
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

// Rows of 2^22 floats, which split across as many teams as the whole
// device may give a row (132 on an H200), each waiting for the others.
using SplitRows = Kokkos::View<float**, Kokkos::CudaSpace>;
constexpr std::size_t split_row_length = std::size_t(1) << 22;

// A call on split rows: `rows` rows of seeded x and weight, y poisoned,
// and its workspace, freed (which fences the whole device) with the call.
struct SplitRowsCall {
  SplitRows x, y;
  Kokkos::View<float*, Kokkos::CudaSpace> weight;
  mutable Workspace<Kokkos::Cuda> workspace;

  explicit SplitRowsCall(std::size_t rows)
      : x("x", rows, split_row_length),
        y("y", rows, split_row_length),
        weight("weight", split_row_length) {
    Testing::fill_uniform(x, 41);
    Testing::fill_uniform(weight, 42);
    Testing::poison(y, std::numeric_limits<double>::quiet_NaN());
    Kokkos::fence();
  }

  // Normalizes the rows with a workspace on `space`, printing the time.
  void run(const Kokkos::Cuda& space, const std::string& what) const {
    const auto start = std::chrono::steady_clock::now();
    rms_norm(space, x, weight, y, 1e-6, workspace);
    space.fence();
    std::printf("%s: %.2f ms\n", what.c_str(),
                std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count());
  }

  // Checks y against the reference and returns its values.
  std::vector<float> checked_result(const std::string& what) const {
    expect_reference_result(x, weight, y, 1e-6, what);
    return host_values(y);
  }
};

// Normalizes `rows` rows on `space` and checks them.
std::vector<float> split_rows_result(const Kokkos::Cuda& space,
                                     std::size_t rows,
                                     const std::string& what) {
  const SplitRowsCall call(rows);
  call.run(space, what);
  return call.checked_result(what);
}

// A share of the device too small to run all the teams of a row at once (a
// green context of 16 SMs, which still reports the device's SM count): the
// first teams of each row wait a while, then sum the missing chunks
// themselves (RowSplit). The result has the bits of the whole device's.
TEST(Cuda, SplitRowsFinishInAGreenContext) {
  const std::size_t rows = 8;
  ASSERT_GT(Impl::choose_launch_shape<Kokkos::Cuda>(
                Impl::RowFacts::of_packs<float, 4>(
                    rows, split_row_length / 4, true,
                    Impl::max_teams_per_row(Kokkos::Cuda())))
                .teams_per_row,
            64);
  const auto whole_device =
      split_rows_result(Kokkos::Cuda(), rows, "whole device");
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice device;
  ASSERT_EQ(cuDeviceGet(&device, Kokkos::Cuda().cuda_device()), CUDA_SUCCESS);
  CUdevResource sms, share, rest;
  ASSERT_EQ(cuDeviceGetDevResource(device, &sms, CU_DEV_RESOURCE_TYPE_SM),
            CUDA_SUCCESS);
  unsigned groups = 1;
  ASSERT_EQ(cuDevSmResourceSplitByCount(&share, &groups, &sms, &rest, 0, 16),
            CUDA_SUCCESS);
  std::printf("green context of %u SMs\n", share.sm.smCount);
  CUdevResourceDesc description;
  ASSERT_EQ(cuDevResourceGenerateDesc(&description, &share, 1), CUDA_SUCCESS);
  CUgreenCtx green;
  ASSERT_EQ(cuGreenCtxCreate(&green, description, device,
                             CU_GREEN_CTX_DEFAULT_STREAM),
            CUDA_SUCCESS);
  CUstream stream;
  ASSERT_EQ(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0),
            CUDA_SUCCESS);
  {
    const Kokkos::Cuda space(static_cast<cudaStream_t>(stream));
    const auto green_values =
        split_rows_result(space, rows, "green context of 16 SMs");
    std::size_t differing = 0;
    for (std::size_t i = 0; i < whole_device.size(); ++i) {
      differing += green_values[i] != whole_device[i];
    }
    EXPECT_EQ(differing, 0u) << "values differ from the whole device's";
  }
  cuStreamDestroy(stream);
  cuGreenCtxDestroy(green);
}

// Eight calls of split rows at once, on eight streams, each with its own
// workspace: together they have far more teams waiting than the device
// runs at once.
TEST(Cuda, SplitRowsFinishOnEightStreams) {
  const auto spaces = Kokkos::Experimental::partition_space(
      Kokkos::Cuda(), 1, 1, 1, 1, 1, 1, 1, 1);
  const std::size_t rows = 4;
  std::vector<SplitRows> xs, ys;
  std::vector<Kokkos::View<float*, Kokkos::CudaSpace>> weights;
  Workspace<Kokkos::Cuda> workspaces[8];
  for (int s = 0; s < 8; ++s) {
    xs.emplace_back("x", rows, split_row_length);
    ys.emplace_back("y", rows, split_row_length);
    weights.emplace_back("weight", split_row_length);
    Testing::fill_uniform(xs[s], 50 + s);
    Testing::fill_uniform(weights[s], 60 + s);
    Testing::poison(ys[s], std::numeric_limits<double>::quiet_NaN());
  }
  Kokkos::fence();
  for (int s = 0; s < 8; ++s) {
    rms_norm(spaces[s], xs[s], weights[s], ys[s], 1e-6, workspaces[s]);
  }
  for (int s = 0; s < 8; ++s) {
    spaces[s].fence();
    expect_reference_result(xs[s], weights[s], ys[s], 1e-6,
                            "stream " + std::to_string(s));
  }
}

// Holds most of the device until *released is set (or, should the test
// hang, for about half a minute): a block a SM, each with all of the SM's
// shared memory.
__global__ void occupy_until(const volatile int* released) {
  extern __shared__ int held[];
  const long long start = clock64();
  while (*released == 0 && clock64() - start < (1LL << 36)) {
    if (threadIdx.x == 0) {
      held[0] = 0;
    }
  }
}

// Split rows beside a kernel that holds all but 8 SMs: they finish while it
// still runs.
TEST(Cuda, SplitRowsFinishBesideABusyKernel) {
  int sms = 0, shared = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&shared,
                                   cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
            cudaSuccess);
  ASSERT_EQ(
      cudaFuncSetAttribute(occupy_until,
                           cudaFuncAttributeMaxDynamicSharedMemorySize, shared),
      cudaSuccess);
  int* released = nullptr;
  int* released_on_device = nullptr;
  ASSERT_EQ(cudaHostAlloc(&released, sizeof(int), cudaHostAllocMapped),
            cudaSuccess);
  *released = 0;
  ASSERT_EQ(cudaHostGetDevicePointer(&released_on_device, released, 0),
            cudaSuccess);
  cudaStream_t busy;
  ASSERT_EQ(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking),
            cudaSuccess);
  const auto spaces = Kokkos::Experimental::partition_space(Kokkos::Cuda(), 1);
  const SplitRowsCall call(4);
  const char* what = "beside a kernel holding all but 8 SMs";
  occupy_until<<<sms - 8, 128, shared, busy>>>(released_on_device);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  call.run(spaces[0], what);
  EXPECT_EQ(cudaStreamQuery(busy), cudaErrorNotReady)
      << "the busy kernel ended first: the test proves nothing";
  *static_cast<volatile int*>(released) = 1;
  ASSERT_EQ(cudaStreamSynchronize(busy), cudaSuccess);
  call.checked_result(what);
  cudaStreamDestroy(busy);
  cudaFreeHost(released);
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
