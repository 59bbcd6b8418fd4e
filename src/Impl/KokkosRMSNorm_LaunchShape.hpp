// SPDX-License-Identifier: BSD-3-Clause
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

inline int ceil_div(std::size_t a, std::size_t b) {
  return static_cast<int>((a + b - 1) / b);
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

}  // namespace KokkosRMSNorm::Impl

#endif
