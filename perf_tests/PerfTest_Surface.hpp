// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_SURFACE_HPP
#define KOKKOSRMSNORM_PERFTEST_SURFACE_HPP

// The performance surface: every entry point x dtype x row length, on as
// many rows as make a call move 256 MB and on the decode sizes, each cell
// beside the copy of its shape, so that a cliff anywhere shows (and
// perf_tests/surface.py draws it and compares two runs). Names:
// surface/<entry>/<dtype>/M:<rows>/N:<n>, and surface_graph/... for the same
// cells replayed from CUDA graphs.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "PerfTest_Benchmarks.hpp"
#include "PerfTest_Quantized.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
#include "PerfTest_CudaLaunch.hpp"
#endif

namespace KokkosRMSNorm::PerfTest {

// The widths of real models and some between, and odd ones (rows of no
// whole Pack). The smoke set runs in minutes.
inline std::vector<std::size_t> surface_row_lengths(bool smoke) {
  if (smoke) {
    return {256, 1000, 4096, 4097};
  }
  return {128,   256,   512,   768,   1000,  1024,  1536,  2048, 2560,
          3072,  3584,  4096,  4097,  5003,  5120,  6144,  7168, 8192,
          10240, 12288, 14336, 16384, 18432, 24576, 32768, 65536};
}

// The rows of the decode steps, and as many as make one call read and
// write 256 MB of x and y (more than the decode steps' 256).
template <class T>
std::vector<std::size_t> surface_rows(std::size_t n, bool smoke) {
  constexpr std::size_t bytes = std::size_t(256) << 20;
  const std::size_t large = std::max<std::size_t>(
      512, (bytes + 2 * n * sizeof(T) - 1) / (2 * n * sizeof(T)));
  return smoke ? std::vector<std::size_t>{8, large}
               : std::vector<std::size_t>{1, 8, 64, 256, large};
}

// Matrices of a shape's rows, one per rotating copy, each a View of the
// shape's extents inside a wider allocation: `first` columns in, with
// `extra` columns more a row (0 and 0: plain LayoutRight matrices).
template <class T>
std::vector<Kokkos::View<T**, Kokkos::LayoutStride, Space>> surface_matrices(
    const Shape& shape, int copies, std::size_t first, std::size_t extra) {
  std::vector<Kokkos::View<T**, Kokkos::LayoutStride, Space>> out;
  for (int c = 0; c < copies; ++c) {
    Kokkos::View<T**, Kokkos::LayoutRight, Space> whole("surface", shape.rows,
                                                        shape.n + extra);
    Kokkos::deep_copy(whole, T(0.5f));
    out.emplace_back(Kokkos::subview(
        whole, Kokkos::ALL, Kokkos::make_pair(first, first + shape.n)));
  }
  return out;
}

// One entry point's call c on `space`, over the shape's rotating Buffers
// and whatever else it needs, which it owns.
template <class T>
struct SurfaceCall {
  using Call = std::function<void(const Space&, int)>;
  const char* entry;
  int matrices;  // read or written, for the bytes a call moves
  std::function<Call(const Buffers<T>&, const Shape&, int copies)> make;
  bool in_graphs = true;  // whether CUDA graphs replay it too
  int code_matrices = 0;  // matrices of one-byte codes written
};

template <class T>
std::vector<SurfaceCall<T>> surface_calls() {
  using Call = typename SurfaceCall<T>::Call;
  const auto workspace = [] { return std::make_shared<Workspace<Space>>(); };
  std::vector<SurfaceCall<T>> calls;
  calls.push_back({"rms_norm", 2, [=](const Buffers<T>& b, const Shape&, int) {
                     return Call([&b, w = workspace()](const Space& s, int c) {
                       rms_norm(s, b.x[c], b.weight, b.y[c], eps, *w);
                     });
                   }});
  calls.push_back({"copy", 2, [](const Buffers<T>& b, const Shape&, int) {
                     return Call([&b](const Space& s, int c) {
                       Kokkos::deep_copy(s, b.y[c], b.x[c]);
                     });
                   }});
  if constexpr (std::is_same_v<T, double>) {
    return calls;  // the other entry points as for float
  }
  calls.push_back(
      {"rms_norm_rstd", 2, [=](const Buffers<T>& b, const Shape& shape, int) {
         Kokkos::View<Impl::accumulation_type_t<T>*, Space> rstd("rstd",
                                                                 shape.rows);
         return Call([&b, rstd, w = workspace()](const Space& s, int c) {
           rms_norm(s, b.x[c], b.weight, b.y[c], eps, rstd, *w);
         });
       }});
  calls.push_back(
      {"add_rms_norm_in_place", 4, [=](const Buffers<T>& b, const Shape&, int) {
         return Call([&b, w = workspace()](const Space& s, int c) {
           add_rms_norm(s, b.x[c], b.y[c], b.y[c], b.weight, b.x[c], eps, *w);
         });
       }});
  calls.push_back(
      {"add_rms_norm", 4,
       [=](const Buffers<T>& b, const Shape& shape, int copies) {
         const auto sum = surface_matrices<T>(shape, copies, 0, 0);
         const auto out = surface_matrices<T>(shape, copies, 0, 0);
         return Call([&b, sum, out, w = workspace()](const Space& s, int c) {
           add_rms_norm(s, b.x[c], b.y[c], sum[c], b.weight, out[c], eps, *w);
         });
       }});
  calls.push_back({"rms_norm_backward", 3,
                   [=](const Buffers<T>& b, const Shape& shape, int copies) {
                     const auto dx = surface_matrices<T>(shape, copies, 0, 0);
                     Kokkos::View<Impl::accumulation_type_t<T>*, Space> rstd(
                         "rstd", shape.rows);
                     Kokkos::deep_copy(rstd, 1);
                     typename Buffers<T>::Vector dweight("dweight", shape.n);
                     return Call([&b, dx, rstd, dweight, w = workspace()](
                                     const Space& s, int c) {
                       rms_norm_backward(s, b.y[c], b.x[c], b.weight, rstd,
                                         dx[c], dweight, *w);
                     });
                   },
                   false});
  // FP8 codes with a scale a row (1 byte a value and 4 a row written), of
  // float and 16-bit rows (the double cells returned above).
  if constexpr (!std::is_same_v<T, double>) {
    calls.push_back({"rms_norm_fp8_per_row", 1,
                     [](const Buffers<T>& b, const Shape& shape, int copies) {
                       const auto outputs =
                           std::make_shared<QuantizedOutputs>(shape, copies);
                       return Call([&b, outputs](const Space& s, int c) {
                         rms_norm_quantized(
                             s, b.x[c], b.weight, outputs->codes[c], eps,
                             fp8_e4m3_per_row(outputs->scales[c], 1e-6f));
                       });
                     },
                     true, 1});
  }
  // Rows that do not start on a Pack: x and y one value in, their rows a
  // whole number of Packs apart; and rows a Pack apart plus one value.
  for (const auto& [entry, first, extra] :
       {std::tuple{"rms_norm_offset", std::size_t(1),
                   std::size_t(Impl::vector_width_v<T>)},
        std::tuple{"rms_norm_odd_pitch", std::size_t(0), std::size_t(1)}}) {
    calls.push_back(
        {entry, 2,
         [=, first = first, extra = extra](const Buffers<T>& b,
                                           const Shape& shape, int copies) {
           const auto x = surface_matrices<T>(shape, copies, first, extra);
           const auto y = surface_matrices<T>(shape, copies, first, extra);
           return Call([&b, x, y, w = workspace()](const Space& s, int c) {
             rms_norm(s, x[c], b.weight, y[c], eps, *w);
           });
         }});
  }
  return calls;
}

template <class T>
void register_surface_cell(const SurfaceCall<T>& call, const Shape& shape,
                           double copy_ceiling_gbps) {
  const std::string name =
      "/" + std::string(call.entry) + "/" + dtype_name<T>() +
      "/M:" + std::to_string(shape.rows) + "/N:" + std::to_string(shape.n);
  const std::size_t bytes =
      bytes_per_call<T>(shape, call.matrices) +
      call.code_matrices * shape.rows * (shape.n + sizeof(float));
  // Copies as for x and y alone, so that every entry point of a shape
  // shares its Buffers.
  const Rotation rotation = rotation_for(bytes_per_call<T>(shape));
  configure(benchmark::RegisterBenchmark(
      ("surface" + name).c_str(), [=](benchmark::State& state) {
        const Buffers<T>& buffers = buffers_for<T>(shape, rotation.copies);
        const auto made = call.make(buffers, shape, rotation.copies);
        time_calls(state, Space(), rotation.copies, bytes, rotation.cached,
                   copy_ceiling_gbps, [&](int c) { made(Space(), c); });
      }));
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOSRMSNORM_PERF_ON_HOST)
  if (!call.in_graphs) {
    return;
  }
  register_graph_replay("surface_graph" + name, bytes, copy_ceiling_gbps,
                        rotation.copies, 1, rotation.cached, [=] {
                          const Buffers<T>& buffers =
                              buffers_for<T>(shape, rotation.copies);
                          return call.make(buffers, shape, rotation.copies);
                        });
#endif
}

template <class T>
void register_surface(bool smoke, double copy_ceiling_gbps) {
  const auto calls = surface_calls<T>();
  for (const std::size_t n : surface_row_lengths(smoke)) {
    for (const std::size_t rows : surface_rows<T>(n, smoke)) {
      for (const auto& call : calls) {
        register_surface_cell<T>(call, Shape{rows, n}, copy_ceiling_gbps);
      }
    }
  }
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
