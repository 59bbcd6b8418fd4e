#ifndef KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP
#define KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// How the rows are spread over a TeamPolicy. Chosen on the host from the
// shape alone: no device query, so a call costs the same every time.
struct LaunchShape {
  int league_size;
  int team_size;
  int vector_length;
  int rows_per_team;
  // Whether each team thread owns a row (shared by its vector lanes), or
  // the whole team shares one row.
  bool row_per_thread;
  // Team scratch that keeps the team's rows between the sum of squares and
  // the scaling, so x is read from global memory once; 0 re-reads x.
  std::size_t cache_bytes;
};

template <class ExecutionSpace>
inline constexpr bool is_gpu_v =
    !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

inline int ceil_div(std::size_t a, std::size_t b) {
  return static_cast<int>((a + b - 1) / b);
}

template <class ExecutionSpace>
LaunchShape choose_launch_shape(std::size_t rows, std::size_t packs_per_row,
                                std::size_t pack_bytes) {
  if constexpr (!is_gpu_v<ExecutionSpace>) {
    // A host team is one thread walking its rows, each of which stays in
    // cache between the two passes; blocks of rows amortize the team start.
    const std::size_t rows_per_team =
        std::max<std::size_t>(1, 16384 / packs_per_row);
    return {ceil_div(rows, rows_per_team),   1,    1,
            static_cast<int>(rows_per_team), true, 0};
  } else {
    constexpr int warp = 32;
    // Shared memory every GPU backend grants a team without opting in.
    constexpr std::size_t max_cache_bytes = 48 * 1024;
    const std::size_t row_bytes = packs_per_row * pack_bytes;
    if (packs_per_row <= 8 * warp) {
      // Short rows: a warp per row, eight rows per team.
      constexpr int rows_per_team = 8;
      const std::size_t cache = rows_per_team * row_bytes;
      return {ceil_div(rows, rows_per_team),
              rows_per_team,
              warp,
              rows_per_team,
              true,
              cache <= max_cache_bytes ? cache : 0};
    }
    // Long rows: the whole team on one row, about four Packs a thread.
    const int threads = std::clamp(ceil_div(packs_per_row, 4 * warp) * warp,
                                   4 * warp, 32 * warp);
    return {static_cast<int>(rows),
            threads / warp,
            warp,
            1,
            false,
            row_bytes <= max_cache_bytes ? row_bytes : 0};
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
