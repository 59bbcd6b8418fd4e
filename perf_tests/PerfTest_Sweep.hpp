// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_PERFTEST_SWEEP_HPP
#define KOKKOSRMSNORM_PERFTEST_SWEEP_HPP

// The kernel under launch shapes other than the chosen one, to tune
// choose_launch_shape. Names: sweep/<dtype>/M:<rows>/N:<n>/<shape>.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "PerfTest_Benchmarks.hpp"

namespace KokkosRMSNorm::PerfTest {

inline std::string describe(const Impl::LaunchShape& launch) {
  return "rows:" + std::to_string(launch.rows_per_team) +
         "/teams_per_row:" + std::to_string(launch.teams_per_row) +
         "/rows_per_thread:" + std::to_string(launch.rows_per_thread) +
         "/team:" + std::to_string(launch.team_size) + "x" +
         std::to_string(launch.vector_length) +
         "/packs_per_lane:" + std::to_string(launch.packs_per_lane);
}

// GPU candidates: 8, 16 or 32 vector lanes per row with 4 to 16 rows a
// team, each thread holding 1 row, or 2 or 4 rows at once where its lanes
// hold one Pack of each, or a team of 64 to 1024 threads per row, each with as
// few Packs a lane as cover the row (at most 8, and 8, or four 16-bit ones,
// only up to 512 threads);
// rows longer than four Packs a lane cover, swept twice by 64 to 1024 threads;
// and where rows may be split, chunks of 128 to 512 threads holding 4 Packs a
// thread, or 128 to 512 holding 8, in as many teams as cover the row (at
// most max_teams_per_row), and the same chunks in as few whole warps as
// hold them.
inline std::vector<Impl::LaunchShape> candidates(const Impl::RowFacts& rows) {
  using Backend = Impl::Backend<Space>;
  using Shape = Impl::LaunchShape;
  const std::size_t packs = rows.packs_per_row;
  std::vector<Shape> out;
  for (int vector = 8; vector <= 32; vector *= 2) {
    const int per_lane = Impl::packs_per_lane_for(packs, vector);
    if (std::size_t(per_lane) * vector < packs) {
      continue;  // a row per vector needs more Packs a lane than 8
    }
    for (int per_thread = 1;
         per_thread == 1 || (per_lane == 1 && per_thread <= 4);
         per_thread *= 2) {
      for (int per_team : {4, 8, 16}) {
        out.push_back(Shape::rows_per_vector(rows, per_team,
                                             per_team / per_thread, vector,
                                             per_lane, per_thread));
      }
    }
  }
  for (int threads = 64; threads <= 1024; threads *= 2) {
    const int per_lane = Impl::packs_per_lane_for(packs, threads);
    // Kernels of eight Packs a lane, and of four 16-bit ones, launch at most
    // 512 and 640 threads (RMSNormKernel::max_threads).
    const int most_threads =
        per_lane == 8 || (per_lane == 4 && rows.pack_width > 4) ? 512 : 1024;
    if (std::size_t(threads) <= 2 * packs && threads <= most_threads) {
      out.push_back(Shape::team_per_row<Backend>(rows, threads, per_lane));
    } else if (std::size_t(threads) * 4 < packs) {
      // The row swept twice, four Packs a lane.
      out.push_back(Shape::team_per_row<Backend>(rows, threads, 4));
    }
  }
  const int warp = Kokkos::TeamPolicy<Space>::vector_length_max();
  for (auto [threads, per_lane] :
       {std::pair{128, 4}, std::pair{256, 4}, std::pair{512, 4},
        std::pair{128, 8}, std::pair{256, 8}, std::pair{512, 8}}) {
    const int teams = std::min(Impl::ceil_div(packs, threads * per_lane),
                               rows.max_teams_per_row);
    const Shape split =
        Shape::split_row<Backend>(rows, teams, threads, per_lane);
    // Chunks swept twice take four Packs a lane, whatever per_lane asks.
    if (teams > 1 && split.packs_per_lane == per_lane) {
      out.push_back(split);
      // The same chunks in as few whole warps as hold them, where fewer.
      const int fitted = std::max(
          64,
          Impl::ceil_div(Impl::ceil_div(split.span, per_lane), warp) * warp);
      if (fitted < threads) {
        out.push_back(Shape::split_row<Backend>(rows, teams, fitted, per_lane));
      }
    }
  }
  return out;
}

template <class T>
void register_sweep(const Shape& shape, double copy_ceiling_gbps) {
  constexpr int width = Impl::vector_width_v<T>;
  for (const auto& launch : candidates(Impl::RowFacts::of_packs<T, width>(
           shape.rows, shape.n / width, true,
           Impl::max_teams_per_row(Space())))) {
    register_over_buffers<T>(
        benchmark_name<T>("sweep", shape) + "/" + describe(launch), shape,
        copy_ceiling_gbps, [launch, shape](const Buffers<T>& buffers) {
          using Split = Impl::RowSplit<Impl::accumulation_type_t<T>>;
          const Kokkos::View<std::byte*, Space> workspace(
              "workspace", Split::bytes(shape.rows, launch.teams_per_row));
          return [&buffers, launch, workspace, space = Space()](int c) {
            Impl::launch_rms_norm(
                "KokkosRMSNorm::PerfTest::sweep", space,
                Impl::make_row_math<width>(buffers.x[c], Impl::None(),
                                           Impl::None(), buffers.weight,
                                           buffers.y[c], Impl::None(), eps),
                launch, workspace.data());
          };
        });
  }
}

}  // namespace KokkosRMSNorm::PerfTest

#endif
