#ifndef KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP
#define KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// How the rows are spread over a TeamPolicy. Chosen on the host from the
// extents alone: no device query, so a call costs the same every time.
struct LaunchShape {
  int league_size;
  int team_size;
  int vector_length;
  // 1: the team's threads share a row (vector_length is 1). More: each team
  // thread owns rows_per_thread rows at once, shared by its vector lanes,
  // and the team walks rows_per_team rows.
  int rows_per_team;
  // Packs each lane holds in registers: 1, 2, 4 or 8. Rows longer than the
  // lanes hold at once are swept four Packs a lane at a time.
  int packs_per_lane;
  // More than 1: each row is split into as many chunks of equal length (the
  // last one shorter), a team each, and the teams of a row add their sums of
  // squares through a workspace (the team holds its chunk as it would hold
  // a row). league_size is rows x teams_per_row.
  int teams_per_row = 1;
  // Rows a team thread's vector lanes hold at once, each lane the same Pack
  // of each: 1, or 2 or 4 where packs_per_lane is 1.
  int rows_per_thread = 1;
};

template <class ExecutionSpace>
inline constexpr bool is_gpu_v =
    !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

inline int ceil_div(std::size_t a, std::size_t b) {
  return static_cast<int>((a + b - 1) / b);
}

// The most team scratch a team holds its rows in: Kokkos gives a team at
// most 48 KB of scratch on CUDA, some of it its own.
inline constexpr std::size_t max_row_scratch_bytes = 32768;

// Whether a team holding `bytes` of a row (or of a chunk of one) in one
// sweep holds them in team scratch rather than in registers: on a GPU,
// above 16 KB, where registers would leave a SM two to four such teams
// (bf16 8192 x 16384: 145 -> 137 us, f32 2048 x 65536 split: 348 -> 320,
// log 34; smaller rows ran 1-6% slower in scratch), and up to
// max_row_scratch_bytes.
template <class ExecutionSpace>
bool holds_in_scratch(std::size_t bytes) {
  return is_gpu_v<ExecutionSpace> && bytes > 16384 &&
         bytes <= max_row_scratch_bytes;
}

// The fewest Packs per lane (a power of two, at most 8) for `lanes` lanes to
// cover `packs` in one sweep.
inline int packs_per_lane_for(std::size_t packs, int lanes) {
  int per_lane = 1;
  while (per_lane < 8 && std::size_t(per_lane) * lanes < packs) {
    per_lane *= 2;
  }
  return per_lane;
}

// The shape for rows of `packs_per_row` Packs of `pack_width` values,
// splitting rows across at most `max_teams_per_row` teams.
template <class ExecutionSpace>
LaunchShape choose_launch_shape(std::size_t rows, std::size_t packs_per_row,
                                int pack_width, int max_teams_per_row = 1) {
  if constexpr (!is_gpu_v<ExecutionSpace>) {
    // A host team is one thread walking a block of rows, four Packs at a
    // time; a row stays in cache between its two sweeps.
    const std::size_t rows_per_team =
        std::max<std::size_t>(1, 16384 / packs_per_row);
    return {ceil_div(rows, rows_per_team), 1, 1,
            static_cast<int>(rows_per_team), 4};
  } else {
    constexpr int warp = 32;
    if (packs_per_row <= std::size_t(4) * warp) {
      // Short rows: a row per vector of lanes, each lane holding
      // packs_a_lane Packs in all. A row of a warp's Packs or fewer gets a
      // lane a Pack (at a warp, Kokkos's reduction over the lanes needs no
      // lane mask), and each lane holds its Pack of packs_a_lane rows at
      // once, so that one weight Pack serves them all (torch.compile's
      // layout: bf16 65536 x 256 as 32 lanes x 4 rows 20.7 us back to back,
      // as 8 lanes x 4 Packs 22.0, log 45); a longer row gets as few lanes
      // as hold it in packs_a_lane Packs a lane (f32 65536 x 256: 32 x 2,
      // two rows of which were no faster, log 45). Teams of at least 4 rows
      // and of 64 threads for rows held one at a time, so that teams are few
      // enough for the block scheduler (a team per row halves the bandwidth
      // of 65536 x 256 on an H200); teams of 32 to 128 threads holding 4
      // rows each ran within 1% (log 45). Lanes of 16-bit Packs hold four,
      // the sweep's best for bf16 N = 256 (4 rows 20.7 us, 2 rows 23.2, log
      // 45); lanes of Packs of four values or fewer hold two (f32 65536 x
      // 256: 32 x 2 35.9 us, 16 x 4 36.5, run 27), and so do the lanes of a
      // call of at most 65536 Packs, which is latency-bound: two Packs
      // shorten each row's chain of loads (64 x 256 f32 under graph replay:
      // 2.6 us, against 3.3 with four, run 11).
      const int packs_a_lane =
          pack_width <= 4 || rows * packs_per_row <= 65536 ? 2 : 4;
      const bool fits_a_warp = packs_per_row <= std::size_t(warp);
      const int rows_per_thread = fits_a_warp ? packs_a_lane : 1;
      const int packs_a_lane_a_row = packs_a_lane / rows_per_thread;
      int lanes = 1;
      while (lanes < warp &&
             std::size_t(packs_a_lane_a_row) * lanes < packs_per_row) {
        lanes *= 2;
      }
      const int rows_per_team = std::max(4, 64 / lanes);
      return {ceil_div(rows, rows_per_team),
              rows_per_team / rows_per_thread,
              lanes,
              rows_per_team,
              packs_per_lane_for(packs_per_row, lanes),
              1,
              rows_per_thread};
    }
    if (packs_per_row > std::size_t(512) * 8 && max_teams_per_row > 1) {
      // Longer rows than a team holds: chunks of 256 threads x 8 Packs, as
      // many as rows are long (fewer, swept twice, beyond
      // max_teams_per_row), so a team holds its chunk in registers and x
      // is read once. The sweeps of runs 12 and 15 found 256 x 8 the best
      // chunk (four Packs a thread 15 points slower, sixteen no faster),
      // and a team a row still better up to 4096 Packs.
      constexpr std::size_t chunk = std::size_t(256) * 8;
      const int teams =
          std::min(ceil_div(packs_per_row, chunk), max_teams_per_row);
      return {static_cast<int>(rows) * teams, 256, 1, 1, 8, teams};
    }
    if (packs_per_row <= std::size_t(512) * 8) {
      // A team per row held in registers: four Packs a thread up to 256
      // threads, then eight where a thread's 32 values fit its 64 registers
      // (f32 16384 x 8192: 256 x 8 270 us, 512 x 4 281 us, run 20), so
      // four teams share a SM instead of two. Eight 16-bit Packs a thread
      // ran slower (bf16 8192 x 16384: 256 x 8 330 us spilling at 64
      // registers, 190 us at 80, 512 x 4 148-153 us, runs 20 and 24), so
      // they keep four Packs up to 512 threads.
      const int most_threads_at_four = pack_width <= 4 ? 256 : 512;
      const int per_lane = packs_per_lane_for(
          packs_per_row,
          std::min(ceil_div(ceil_div(packs_per_row, 4), warp) * warp,
                   most_threads_at_four));
      return {static_cast<int>(rows),
              ceil_div(ceil_div(packs_per_row, per_lane), warp) * warp, 1, 1,
              per_lane};
    }
    // Longer rows than registers hold: the largest team, two sweeps.
    return {static_cast<int>(rows), 1024, 1, 1, 4};
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
