#ifndef KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP
#define KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// How the rows are spread over a TeamPolicy, and which kernel runs. Chosen
// on the host from the extents alone: no device query, so a call costs the
// same every time.
struct LaunchShape {
  int league_size;
  int team_size;
  int vector_length;
  // Rows a team walks one after the other (two-pass kernel).
  int rows_per_team;
  // Above 0: a team per row, each thread holding this many Packs of it in
  // registers (1, 2 or 4). 0: the two-pass kernel.
  int packs_per_thread;
};

template <class ExecutionSpace>
inline constexpr bool is_gpu_v =
    !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

inline int ceil_div(std::size_t a, std::size_t b) {
  return static_cast<int>((a + b - 1) / b);
}

template <class ExecutionSpace>
LaunchShape choose_launch_shape(std::size_t rows, std::size_t packs_per_row) {
  if constexpr (!is_gpu_v<ExecutionSpace>) {
    // A host team is one thread walking its rows, each of which stays in
    // cache between the two passes; blocks of rows amortize the team start.
    const std::size_t rows_per_team =
        std::max<std::size_t>(1, 16384 / packs_per_row);
    return {ceil_div(rows, rows_per_team), 1, 1,
            static_cast<int>(rows_per_team), 0};
  } else {
    // Eight 16-byte Packs a thread spill at 64 registers (the cap that lets
    // a team of 1024 launch); four do not.
    constexpr int warp = 32, max_threads = 1024, max_packs_per_thread = 4;
    if (packs_per_row <= std::size_t(max_threads) * max_packs_per_thread) {
      // The row in registers, about four Packs a thread: enough loads in
      // flight per thread without starving the SM of teams.
      const int threads = std::clamp(
          ceil_div(ceil_div(packs_per_row, 4), warp) * warp, warp, max_threads);
      int packs_per_thread = 1;
      while (std::size_t(packs_per_thread) * threads < packs_per_row) {
        packs_per_thread *= 2;
      }
      return {static_cast<int>(rows), threads, 1, 1, packs_per_thread};
    }
    // Longer rows than registers hold: the largest team, two passes.
    return {static_cast<int>(rows), max_threads / warp, warp, 1, 0};
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
