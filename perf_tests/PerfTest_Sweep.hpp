#ifndef KOKKOSRMSNORM_PERFTEST_SWEEP_HPP
#define KOKKOSRMSNORM_PERFTEST_SWEEP_HPP

// The kernel under launch shapes other than the chosen one, to tune
// choose_launch_shape. Names: sweep/<dtype>/M:<rows>/N:<n>/<shape>.

#include <string>
#include <vector>

#include "PerfTest_Benchmarks.hpp"

namespace KokkosRMSNorm::PerfTest {

inline std::string describe(const Impl::LaunchShape& launch) {
  return (launch.packs_per_thread > 0
              ? "registers:" + std::to_string(launch.packs_per_thread)
              : std::string("two_pass")) +
         "/team:" + std::to_string(launch.team_size) + "x" +
         std::to_string(launch.vector_length);
}

// GPU candidates, a team per row: the row in registers with 32 to 1024
// threads (as few Packs a thread as cover the row, at most 4), or two passes
// with 128 to 1024 threads.
inline std::vector<Impl::LaunchShape> candidates(std::size_t rows,
                                                 std::size_t packs) {
  std::vector<Impl::LaunchShape> out;
  const int league = static_cast<int>(rows);
  for (int threads = 32; threads <= 1024; threads *= 2) {
    int per_thread = 1;
    while (std::size_t(per_thread) * threads < packs)
      per_thread *= 2;
    if (per_thread <= 4 && std::size_t(threads) <= 2 * packs) {
      out.push_back({league, threads, 1, 1, per_thread});
    }
  }
  for (int threads = 128; threads <= 1024; threads *= 2) {
    out.push_back({league, threads / 32, 32, 1, 0});
  }
  return out;
}

template <class T>
void register_sweep(const Shape& shape, double copy_ceiling_gbps) {
  constexpr int width = Impl::vector_width_v<T>;
  for (const auto& launch : candidates(shape.rows, shape.n / width)) {
    configure(benchmark::RegisterBenchmark(
        (benchmark_name<T>("sweep", shape) + "/" + describe(launch)).c_str(),
        [=](benchmark::State& state) {
          const std::size_t bytes = bytes_per_call<T>(shape);
          const Rotation rotation = rotation_for(bytes);
          const Buffers<T>& buffers = buffers_for<T>(shape, rotation.copies);
          const Space space;
          time_calls(state, space, rotation.copies, bytes, rotation.cached,
                     copy_ceiling_gbps, [&](int c) {
                       Impl::launch_rms_norm<width>(space, buffers.x[c],
                                                    buffers.weight,
                                                    buffers.y[c], eps, launch);
                     });
        }));
  }
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
