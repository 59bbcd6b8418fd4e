// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_HARNESS_HPP
#define KOKKOSRMSNORM_PERFTEST_HARNESS_HPP

// How every implementation is timed, so that all of them are read the same
// way: calls back to back over rotating buffers, one fence per sweep, the
// per-call time and bandwidth reported as counters (medians over the
// repetitions come from Google Benchmark's aggregates).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>

namespace KokkosRMSNorm::PerfTest {

// The space timed: the default one, or with KOKKOSRMSNORM_PERF_ON_HOST the
// host's (OpenMP or Threads beside a GPU backend, whose 16-bit types are
// then 16 bits wide on the host too).
#ifdef KOKKOSRMSNORM_PERF_ON_HOST
using Space = Kokkos::DefaultHostExecutionSpace;
#else
using Space = Kokkos::DefaultExecutionSpace;
#endif

template <class T>
std::string dtype_name() {
  if constexpr (std::is_same_v<T, float>)
    return "float32";
  if constexpr (std::is_same_v<T, double>)
    return "float64";
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
  if constexpr (std::is_same_v<T, Kokkos::Experimental::bhalf_t>) {
    return "bfloat16";
  }
#endif
  if constexpr (std::is_same_v<T, Kokkos::Experimental::half_t>) {
    return "float16";
  }
}

struct Shape {
  std::size_t rows;
  std::size_t n;
};

// Bytes one call must move at least: `matrices` M x N matrices read or
// written (x read and y written for rms_norm), and the weight read once.
template <class T>
std::size_t bytes_per_call(const Shape& shape, int matrices = 2) {
  return (matrices * shape.rows * shape.n + shape.n) * sizeof(T);
}

// Enough copies of a shape's buffers that one sweep over them moves about
// 1 GiB, far more than the 60 MB L2 of an H200, so that each call reads
// from memory; tiny shapes are capped and reported as cached.
struct Rotation {
  int copies;
  bool cached;
};

inline Rotation rotation_for(std::size_t bytes) {
  constexpr std::size_t sweep_bytes = std::size_t(1) << 30;
  constexpr std::size_t cache_bytes = 3 * 60 * (std::size_t(1) << 20);
  const int copies = static_cast<int>(
      std::clamp<std::size_t>((sweep_bytes + bytes - 1) / bytes, 4, 256));
  return {copies, copies * bytes < cache_bytes};
}

// Inputs and outputs of one shape, `copies` times over.
template <class T>
struct Buffers {
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Space>;
  using Vector = Kokkos::View<T*, Space>;

  std::vector<Matrix> x, y;
  Vector weight;

  Buffers(const Shape& shape, int copies) : weight("weight", shape.n) {
    Kokkos::Random_XorShift64_Pool<Space> pool(2024);
    for (int c = 0; c < copies; ++c) {
      x.emplace_back("x", shape.rows, shape.n);
      y.emplace_back("y", shape.rows, shape.n);
      fill(x.back(), pool);
    }
    fill(weight, pool);
    Space().fence();
  }

  // fill_random takes float or double; narrower types are filled through a
  // float copy.
  template <class View>
  static void fill(const View& view,
                   Kokkos::Random_XorShift64_Pool<Space>& pool) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      Kokkos::fill_random(view, pool, T(-1), T(1));
    } else {
      Kokkos::View<float*, Space> values("values", view.size());
      Kokkos::fill_random(values, pool, -1.0f, 1.0f);
      const auto flat = Kokkos::View<T*, Space, Kokkos::MemoryUnmanaged>(
          view.data(), view.size());
      Kokkos::parallel_for(
          Kokkos::RangePolicy<Space>(0, view.size()),
          KOKKOS_LAMBDA(std::size_t i) { flat(i) = T(values(i)); });
    }
  }
};

// The buffers of the shape being timed, kept from one benchmark to the
// next: Google Benchmark calls a benchmark's function several times per
// repetition, and the implementations of one shape share its inputs.
struct CurrentBuffers {
  std::string key;
  std::shared_ptr<void> buffers;
};

inline CurrentBuffers& current_buffers() {
  static CurrentBuffers current;
  return current;
}

template <class T>
const Buffers<T>& buffers_for(const Shape& shape, int copies) {
  const std::string key = dtype_name<T>() + "/" + std::to_string(shape.rows) +
                          "/" + std::to_string(shape.n) + "/" +
                          std::to_string(copies);
  CurrentBuffers& current = current_buffers();
  if (current.key != key) {
    current.buffers.reset();  // free the last shape's memory first
    current.buffers = std::make_shared<Buffers<T>>(shape, copies);
    current.key = key;
  }
  return *static_cast<const Buffers<T>*>(current.buffers.get());
}

// Frees the kept buffers; before Kokkos is finalized.
inline void release_buffers() {
  current_buffers() = {};
}

// Times `call(copy)` back to back over `copies` buffers per iteration, with
// one fence of `space` per iteration. Google Benchmark's time is that of an
// iteration; the counters give the microseconds of one of the
// `calls_per_call` operations each `call` makes, its GB/s for `bytes` and
// the share of the copy ceiling.
template <class ExecutionSpace, class Call>
void time_calls(benchmark::State& state, const ExecutionSpace& space,
                int copies, std::size_t bytes, bool cached,
                double copy_ceiling_gbps, const Call& call,
                int calls_per_call = 1) {
  using clock = std::chrono::steady_clock;
  for (int c = 0; c < copies; ++c)
    call(c);  // warm-up
  space.fence();
  double seconds = 0;
  for (auto _ : state) {
    const auto start = clock::now();
    for (int c = 0; c < copies; ++c)
      call(c);
    space.fence();
    const double elapsed =
        std::chrono::duration<double>(clock::now() - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  const double per_call =
      seconds / (double(state.iterations()) * copies * calls_per_call);
  const double gbps = bytes / per_call * 1e-9;
  state.counters["us"] = per_call * 1e6;
  state.counters["gbps"] = gbps;
  state.counters["pct_of_copy"] = 100 * gbps / copy_ceiling_gbps;
  state.counters["cached"] = cached;
}

// Device-to-device deep_copy bandwidth, counting bytes read and written:
// the ceiling every result is read against. Median of 21 copies.
inline double measure_copy_ceiling_gbps(std::size_t bytes) {
  const std::size_t count = bytes / sizeof(float);
  Kokkos::View<float*, Space> source("source", count),
      destination("destination", count);
  Kokkos::deep_copy(source, 1.0f);
  Kokkos::deep_copy(destination, source);  // warm-up
  Space().fence();
  std::vector<double> gbps;
  for (int i = 0; i < 21; ++i) {
    Kokkos::Timer timer;
    Kokkos::deep_copy(destination, source);
    Space().fence();
    gbps.push_back(2.0 * count * sizeof(float) / timer.seconds() * 1e-9);
  }
  std::nth_element(gbps.begin(), gbps.begin() + gbps.size() / 2, gbps.end());
  return gbps[gbps.size() / 2];
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
