// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_BENCHMARKS_HPP
#define KOKKOSRMSNORM_PERFTEST_BENCHMARKS_HPP

// The implementations timed per shape and dtype: this package's kernel (on
// a host also writing one output, as PyTorch is timed), the Kokkos Kernels
// composition, the launch floor (an empty TeamPolicy of the
// same launch shape) and a copy of the shape's bytes; on fewer shapes, the
// fused residual add and the backward pass. Names:
// <impl>/<dtype>/M:<rows>/N:<n>.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <KokkosRMSNorm.hpp>
#ifdef KOKKOSRMSNORM_HAS_KOKKOSKERNELS
#include <KokkosRMSNorm_Testing_KokkosKernels.hpp>
#endif

#include "PerfTest_Harness.hpp"

namespace KokkosRMSNorm::PerfTest {

constexpr double eps = 1e-6;

template <class T>
std::string benchmark_name(const std::string& impl, const Shape& shape) {
  return impl + "/" + dtype_name<T>() + "/M:" + std::to_string(shape.rows) +
         "/N:" + std::to_string(shape.n);
}

inline benchmark::internal::Benchmark* configure(
    benchmark::internal::Benchmark* benchmark) {
  return benchmark->UseManualTime()->Unit(benchmark::kMicrosecond);
}

// Registers `name`, timing back to back over the shape's rotating buffers
// the call that make_call(buffers) returns (a callable taking the index of
// a copy), which moves `matrices` M x N matrices.
template <class T, class MakeCall>
void register_over_buffers(const std::string& name, const Shape& shape,
                           double copy_ceiling_gbps, MakeCall make_call,
                           int matrices = 2) {
  configure(
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const std::size_t bytes = bytes_per_call<T>(shape, matrices);
        const Rotation rotation = rotation_for(bytes);
        const Buffers<T>& buffers = buffers_for<T>(shape, rotation.copies);
        time_calls(state, Space(), rotation.copies, bytes, rotation.cached,
                   copy_ceiling_gbps, make_call(buffers));
      }));
}

// A copy of `bytes` (half read, half written) between rotating buffers: the
// ceiling of a call that moves them.
template <class T>
void register_copy_of_bytes(const std::string& name, const Shape& shape,
                            std::size_t bytes, double copy_ceiling_gbps) {
  configure(
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const Rotation rotation = rotation_for(bytes);
        // x's buffers keep the same memory in use as the calls' own.
        buffers_for<T>(shape, rotation.copies);
        std::vector<Kokkos::View<std::uint8_t*, Space>> from, to;
        for (int c = 0; c < rotation.copies; ++c) {
          from.emplace_back("from", bytes / 2);
          to.emplace_back("to", bytes / 2);
        }
        time_calls(state, Space(), rotation.copies, bytes, rotation.cached,
                   copy_ceiling_gbps,
                   [&](int c) { Kokkos::deep_copy(Space(), to[c], from[c]); });
      }));
}

// With a workspace, as a demanding user calls it (long rows split across
// teams where the backend allows it); the workspace grows in the warm-up
// calls.
template <class T>
void register_rms_norm(const Shape& shape, double copy_ceiling_gbps) {
  register_over_buffers<T>(
      benchmark_name<T>("kokkosrmsnorm", shape), shape, copy_ceiling_gbps,
      [](const Buffers<T>& buffers) {
        return [&buffers,
                workspace = std::make_shared<Workspace<Space>>()](int c) {
          rms_norm(Space(), buffers.x[c], buffers.weight, buffers.y[c], eps,
                   *workspace);
        };
      });
}

// Every call writing one output, as PyTorch's calls on a host do (its
// allocator gives each call's output the block the last call freed, which
// the caches keep): ours timed as compare_torch_host.py times PyTorch.
template <class T>
void register_rms_norm_one_output(const Shape& shape,
                                  double copy_ceiling_gbps) {
  register_over_buffers<T>(benchmark_name<T>("one_output", shape), shape,
                           copy_ceiling_gbps, [](const Buffers<T>& buffers) {
                             return [&buffers](int c) {
                               rms_norm(Space(), buffers.x[c], buffers.weight,
                                        buffers.y[0], eps);
                             };
                           });
}

// Without a workspace, on the shapes where that changes the kernel.
template <class T>
void register_rms_norm_without_workspace(const Shape& shape,
                                         double copy_ceiling_gbps) {
  const std::size_t packs = shape.n / Impl::vector_width_v<T>;
  if (Impl::choose_launch_shape<Space>(
          Impl::RowFacts::of_packs<T, Impl::vector_width_v<T>>(
              shape.rows, packs, true, Impl::max_teams_per_row(Space())))
          .spread != Impl::LaunchShape::Spread::split_row) {
    return;
  }
  register_over_buffers<T>(benchmark_name<T>("without_workspace", shape), shape,
                           copy_ceiling_gbps, [](const Buffers<T>& buffers) {
                             return [&buffers](int c) {
                               rms_norm(Space(), buffers.x[c], buffers.weight,
                                        buffers.y[c], eps);
                             };
                           });
}

// The fused residual add in place, as vLLM calls it: x and the residual
// read, the sum written over the residual and y over x, four matrices;
// with a workspace.
template <class T>
void register_add_rms_norm(const Shape& shape, double copy_ceiling_gbps) {
  register_over_buffers<T>(
      benchmark_name<T>("add_rms_norm", shape), shape, copy_ceiling_gbps,
      [](const Buffers<T>& buffers) {
        return [&buffers,
                workspace = std::make_shared<Workspace<Space>>()](int c) {
          add_rms_norm(Space(), buffers.x[c], buffers.y[c], buffers.y[c],
                       buffers.weight, buffers.x[c], eps, *workspace);
        };
      },
      4);
}

// The same call on the same Views every time and without a workspace, as a
// decoder's plain loop calls it: each call reads what the last one wrote.
template <class T>
void register_add_rms_norm_same_views(const Shape& shape,
                                      double copy_ceiling_gbps) {
  register_over_buffers<T>(
      benchmark_name<T>("add_rms_norm_same_views", shape), shape,
      copy_ceiling_gbps,
      [](const Buffers<T>& buffers) {
        return [&buffers](int) {
          add_rms_norm(Space(), buffers.x[0], buffers.y[0], buffers.y[0],
                       buffers.weight, buffers.x[0], eps);
        };
      },
      4);
}

// The backward pass: dy (the y buffers) and x read, dx written, three
// matrices; its workspace grows in the warm-up calls.
template <class T>
void register_backward(const Shape& shape, double copy_ceiling_gbps) {
  register_over_buffers<T>(
      benchmark_name<T>("rms_norm_backward", shape), shape, copy_ceiling_gbps,
      [shape](const Buffers<T>& buffers) {
        using Matrix = typename Buffers<T>::Matrix;
        std::vector<Matrix> dx;
        for (std::size_t c = 0; c < buffers.x.size(); ++c) {
          dx.emplace_back("dx", shape.rows, shape.n);
        }
        Kokkos::View<Impl::accumulation_type_t<T>*, Space> rstd("rstd",
                                                                shape.rows);
        Kokkos::deep_copy(rstd, 1);
        typename Buffers<T>::Vector dweight("dweight", shape.n);
        return [&buffers, dx, rstd, dweight,
                workspace = std::make_shared<Workspace<Space>>()](int c) {
          rms_norm_backward(Space(), buffers.y[c], buffers.x[c], buffers.weight,
                            rstd, dx[c], dweight, *workspace);
        };
      },
      3);
}

// x copied into y by deep_copy, as the copy ceiling is measured, but on the
// shape's own two matrices: the bandwidth a copy of that size reaches, its
// launch, ramp and drain included, where the ceiling is a 2 GiB copy's.
template <class T>
void register_copy(const Shape& shape, double copy_ceiling_gbps) {
  register_over_buffers<T>(benchmark_name<T>("copy", shape), shape,
                           copy_ceiling_gbps, [](const Buffers<T>& buffers) {
                             return [&buffers](int c) {
                               Kokkos::deep_copy(Space(), buffers.y[c],
                                                 buffers.x[c]);
                             };
                           });
}

struct EmptyTeamKernel {
  KOKKOS_FUNCTION void operator()(
      const Kokkos::TeamPolicy<Space>::member_type&) const {}
};

// The TeamPolicy rms_norm would use for the shape, on `space`.
template <class T>
Kokkos::TeamPolicy<Space> launch_floor_policy(const Space& space,
                                              const Shape& shape) {
  constexpr int width = Impl::vector_width_v<T>;
  const auto launch = Impl::choose_launch_shape<Space>(
      Impl::RowFacts::of_packs<T, width>(shape.rows, shape.n / width, true));
  return Kokkos::TeamPolicy<Space>(space, launch.league_size, launch.team_size,
                                   launch.vector_length);
}

// An empty kernel launched with that policy: what a call costs before it
// touches memory.
template <class T>
void register_launch_floor(const Shape& shape, double copy_ceiling_gbps) {
  configure(benchmark::RegisterBenchmark(
      benchmark_name<T>("launch_floor", shape).c_str(),
      [=](benchmark::State& state) {
        const auto policy = launch_floor_policy<T>(Space(), shape);
        time_calls(state, Space(), 256, bytes_per_call<T>(shape), true,
                   copy_ceiling_gbps, [&](int) {
                     Kokkos::parallel_for("KokkosRMSNorm::launch_floor", policy,
                                          EmptyTeamKernel{});
                   });
      }));
}

#ifdef KOKKOSRMSNORM_HAS_KOKKOSKERNELS
template <class T>
void register_kokkos_kernels(const Shape& shape, double copy_ceiling_gbps) {
  register_over_buffers<T>(
      benchmark_name<T>("kokkos_kernels", shape), shape, copy_ceiling_gbps,
      [rows = shape.rows](const Buffers<T>& buffers) {
        // The composition's per-row workspace is allocated here, untimed.
        return [&buffers,
                composed = Testing::KokkosKernelsRMSNorm<T, Space::device_type>(
                    rows)](int c) {
          composed(buffers.x[c], buffers.weight, buffers.y[c], T(eps));
        };
      });
}
#endif

template <class T>
void register_all(const Shape& shape, double copy_ceiling_gbps) {
  register_rms_norm<T>(shape, copy_ceiling_gbps);
  register_rms_norm_without_workspace<T>(shape, copy_ceiling_gbps);
#ifdef KOKKOSRMSNORM_PERF_ON_HOST
  register_rms_norm_one_output<T>(shape, copy_ceiling_gbps);
#endif
#ifdef KOKKOSRMSNORM_HAS_KOKKOSKERNELS
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    register_kokkos_kernels<T>(shape, copy_ceiling_gbps);
  }
#endif
  register_launch_floor<T>(shape, copy_ceiling_gbps);
  register_copy<T>(shape, copy_ceiling_gbps);
}

template <class T>
void register_features(const Shape& shape, double copy_ceiling_gbps) {
  register_add_rms_norm<T>(shape, copy_ceiling_gbps);
  register_add_rms_norm_same_views<T>(shape, copy_ceiling_gbps);
  register_backward<T>(shape, copy_ceiling_gbps);
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
