// SPDX-License-Identifier: BSD-3-Clause
// Google Benchmark harness: measures the copy ceiling first, then times every
// implementation on every shape of the perf set, reporting microseconds per
// call, GB/s and the share of that ceiling.
//
// Flags besides Google Benchmark's:
//   --ceiling-mib=N   bytes of each copy-ceiling buffer (default 2048)
//   --shapes=smoke    a few small shapes instead of the full set (for CI)
//   --sweep           only the launch-shape sweep (GPU; f32, bf16, f64)
//   --sweep=MxN,...   the same on the shapes named (rows x row length)
//   --surface         only the performance surface (PerfTest_Surface.hpp);
//   --surface=smoke   its subset that runs in minutes
//   --quantized       only the quantized outputs (PerfTest_Quantized.hpp);
//   --quantized=smoke one small shape of them
//   --heads           only QK-norm on a fused qkv buffer (PerfTest_Heads.hpp);
//   --heads=smoke     one small shape of it
//   --decode          only the decode-step calls (PerfTest_Decode.hpp);
//   --decode=smoke    two shapes of them

#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include "PerfTest_Benchmarks.hpp"
#include "PerfTest_Decode.hpp"
#include "PerfTest_Heads.hpp"
#include "PerfTest_Quantized.hpp"
#include "PerfTest_Surface.hpp"
#include "PerfTest_Sweep.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
#include "PerfTest_CudaLaunch.hpp"
#endif

namespace {

using KokkosRMSNorm::PerfTest::Shape;

// The perf set of the [cuda-harness] issue.
const std::vector<Shape> full_shapes = {
    {64, 256},     {1, 4096},     {128, 4096},   {4096, 4096},  {16384, 2048},
    {16384, 4096}, {16384, 5120}, {32768, 4096}, {16384, 8192}, {8192, 16384},
    {2048, 65536}, {256, 262144}, {65536, 256},  {65536, 1024}};
const std::vector<Shape> smoke_shapes = {{64, 256}, {1, 4096}, {128, 1000}};
// Where the fused residual add and the backward pass are timed; the last
// three are where in-place add_rms_norm was found slow on the same Views.
const std::vector<Shape> feature_shapes = {{4096, 4096},  {16384, 4096},
                                           {16384, 8192}, {64, 8192},
                                           {128, 5120},   {4096, 7168}};
const std::vector<Shape> smoke_feature_shapes = {{128, 1000}};
// Where the quantized outputs are timed: M x N of 16M values and more, the
// issue's target, at the widths of common models.
const std::vector<Shape> quantized_shapes = {
    {4096, 4096}, {16384, 2048}, {16384, 4096}, {8192, 5120},
    {8192, 7168}, {8192, 8192},  {4096, 16384}};
const std::vector<Shape> smoke_quantized_shapes = {{128, 1000}};

// Shapes written "MxN,MxN".
std::vector<Shape> parse_shapes(const std::string& list) {
  std::vector<Shape> shapes;
  std::size_t at = 0;
  while (at < list.size()) {
    std::size_t end = list.find(',', at);
    end = end == std::string::npos ? list.size() : end;
    const std::string item = list.substr(at, end - at);
    const std::size_t x = item.find('x');
    shapes.push_back(
        {std::stoul(item.substr(0, x)), std::stoul(item.substr(x + 1))});
    at = end + 1;
  }
  return shapes;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  std::size_t ceiling_mib = 2048;
  bool smoke = false, sweep = false, surface = false, quantized = false,
       heads = false, decode = false;
  std::vector<Shape> sweep_shapes = full_shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag.rfind("--ceiling-mib=", 0) == 0) {
      ceiling_mib = std::stoul(flag.substr(14));
    } else if (flag == "--shapes=smoke") {
      smoke = true;
    } else if (flag == "--sweep") {
      sweep = true;
    } else if (flag.rfind("--sweep=", 0) == 0) {
      sweep = true;
      sweep_shapes = parse_shapes(flag.substr(8));
    } else if (flag == "--surface" || flag == "--surface=smoke") {
      surface = true;
      smoke = flag == "--surface=smoke";
    } else if (flag == "--quantized" || flag == "--quantized=smoke") {
      quantized = true;
      smoke = flag == "--quantized=smoke";
    } else if (flag == "--heads" || flag == "--heads=smoke") {
      heads = true;
      smoke = flag == "--heads=smoke";
    } else if (flag == "--decode" || flag == "--decode=smoke") {
      decode = true;
      smoke = flag == "--decode=smoke";
    } else {
      benchmark::ReportUnrecognizedArguments(argc - i, argv + i);
      return 2;
    }
  }

  namespace P = KokkosRMSNorm::PerfTest;
  const double ceiling = P::measure_copy_ceiling_gbps(ceiling_mib << 20);
  benchmark::AddCustomContext("copy_ceiling_gbps", std::to_string(ceiling));
  benchmark::AddCustomContext("kokkos_backend", P::Space::name());
  if (surface) {
    P::register_surface<float>(smoke, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
    P::register_surface<Kokkos::Experimental::bhalf_t>(smoke, ceiling);
#endif
    if constexpr (sizeof(Kokkos::Experimental::half_t) == 2) {
      P::register_surface<Kokkos::Experimental::half_t>(smoke, ceiling);
    }
    P::register_surface<double>(smoke, ceiling);
  } else if (decode) {
    P::register_decode_floors(ceiling);
    for (const Shape& shape : P::decode_shapes(smoke)) {
      P::register_decode<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_decode<Kokkos::Experimental::bhalf_t>(shape, ceiling);
#endif
      if constexpr (sizeof(Kokkos::Experimental::half_t) == 2) {
        P::register_decode<Kokkos::Experimental::half_t>(shape, ceiling);
      }
    }
  } else if (heads) {
    for (const std::size_t head_dim :
         smoke ? std::vector<std::size_t>{128}
               : std::vector<std::size_t>{64, 128, 256}) {
      const std::size_t tokens = smoke ? 64 : 16384;
      P::register_heads<float>(tokens, head_dim, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_heads<Kokkos::Experimental::bhalf_t>(tokens, head_dim,
                                                       ceiling);
#endif
      if constexpr (sizeof(Kokkos::Experimental::half_t) == 2) {
        P::register_heads<Kokkos::Experimental::half_t>(tokens, head_dim,
                                                        ceiling);
      }
    }
  } else if (quantized) {
    for (const Shape& shape :
         smoke ? smoke_quantized_shapes : quantized_shapes) {
      P::register_quantized<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_quantized<Kokkos::Experimental::bhalf_t>(shape, ceiling);
#endif
      if constexpr (sizeof(Kokkos::Experimental::half_t) == 2) {
        P::register_quantized<Kokkos::Experimental::half_t>(shape, ceiling);
      }
    }
  } else if (sweep) {
    for (const Shape& shape : sweep_shapes) {
      P::register_sweep<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_sweep<Kokkos::Experimental::bhalf_t>(shape, ceiling);
#endif
      P::register_sweep<double>(shape, ceiling);
    }
  } else {
    for (const Shape& shape : smoke ? smoke_shapes : full_shapes) {
      P::register_all<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_all<Kokkos::Experimental::bhalf_t>(shape, ceiling);
#endif
    }
    for (const Shape& shape : smoke ? smoke_feature_shapes : feature_shapes) {
      P::register_features<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_features<Kokkos::Experimental::bhalf_t>(shape, ceiling);
#endif
    }
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
    P::register_cuda_empty_kernel(ceiling);
    P::register_graph_replay_empty_kernel(ceiling);
    for (const Shape& shape : {Shape{64, 256}, Shape{1, 4096}}) {
      P::register_graph_replays<float>(shape, ceiling);
    }
    for (const Shape& shape : smoke ? smoke_shapes : full_shapes) {
      P::register_rotating_graph_replays<float>(shape, ceiling);
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
      P::register_rotating_graph_replays<Kokkos::Experimental::bhalf_t>(
          shape, ceiling);
#endif
    }
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  P::release_buffers();
  benchmark::Shutdown();
  return 0;
}
