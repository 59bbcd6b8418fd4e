// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP
#define KOKKOSRMSNORM_IMPL_LAUNCHSHAPE_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Pack.hpp"

namespace KokkosRMSNorm::Impl {

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

// What a launch shape depends on about the rows it normalizes.
struct RowFacts {
  std::size_t rows;
  std::size_t packs_per_row;
  int pack_width;  // values a Pack
  std::size_t pack_bytes;
  // Whether the lanes load x as it is stored (no residual added to it), so
  // that a team may copy it to its scratch as it is.
  bool loads_x_as_stored;
  // The most teams that may share a row: 1 where rows may not be split.
  int max_teams_per_row;
  // Whether Pack j of the weight scales Pack j of every row alike (rows
  // that start on a Pack), so that a lane may hold several rows at once.
  bool rows_share_weight_packs = true;

  // The rows a RowMath normalizes.
  template <class Math>
  static RowFacts of(const Math& math, int max_teams_per_row = 1) {
    return {math.rows(),
            math.packs_per_row(),
            Math::width,
            sizeof(typename Math::pack),
            Math::loads_x_as_stored,
            max_teams_per_row,
            Math::rows_share_weight_packs};
  }

  // Rows of `packs_per_row` Packs of Width values of type T.
  template <class T, int Width>
  static RowFacts of_packs(std::size_t rows, std::size_t packs_per_row,
                           bool loads_x_as_stored, int max_teams_per_row = 1) {
    return {rows,
            packs_per_row,
            Width,
            sizeof(Pack<T, Width>),
            loads_x_as_stored,
            max_teams_per_row};
  }
};

// How the rows are spread over a TeamPolicy: which kernel runs and with
// which launch parameters. Built on the host only through the named
// constructors, which take the sweeps and where a row is held from the rows'
// facts and the backend's rule, so that any shape they build can launch on
// that backend; chosen by the backend's choose_launch_shape from the extents
// alone: no device query, so a call costs the same every time.
struct LaunchShape {
  // How the lanes meet the rows.
  enum class Spread {
    // A team's threads share a row (vector_length is 1).
    team_per_row,
    // Each team thread's vector lanes share rows_per_thread rows at once,
    // and the team walks rows_per_team rows.
    rows_per_vector,
    // Each row is split into teams_per_row chunks of equal length (the last
    // one shorter), a team each, and the teams of a row add their sums of
    // squares through a workspace (a team holds its chunk as it would hold a
    // row). league_size is rows x teams_per_row.
    split_row,
  };
  // How often the lanes read a row (or a chunk of one).
  enum class Sweeps {
    // Once: the lanes cover it in one sweep and hold it between the sum of
    // squares and the scaling, so x is read from memory once.
    one,
    // Twice, four Packs a lane at a time: it is longer than the lanes hold.
    two,
  };
  // Where the lanes hold a row they sweep once.
  enum class Holding { registers, team_scratch };

  Spread spread;
  Sweeps sweeps = Sweeps::one;
  Holding holding = Holding::registers;
  int league_size;
  int team_size;
  int vector_length;
  int rows_per_team;  // 1 but for rows_per_vector
  // Packs each lane holds of a row at once: 1, 2, 4 or 8 (4 or 8 for split
  // rows), and 4 for rows swept twice.
  int packs_per_lane;
  int teams_per_row;        // 1 but for split_row
  int rows_per_thread = 1;  // 1, or 2 or 4 for rows_per_vector
  int span;                 // Packs a team covers: a row, or a chunk of one

  // The lanes that share a row: a team's threads, or a thread's vector lanes.
  int lanes() const {
    return spread == Spread::rows_per_vector ? vector_length : team_size;
  }

  // Teams of `team_size` threads, a row each, each thread holding
  // `packs_per_lane` Packs (1, 2, 4 or 8) of it where they cover it.
  template <class Backend>
  static LaunchShape team_per_row(const RowFacts& rows, int team_size,
                                  int packs_per_lane) {
    return held_by_team<Backend>(
        rows,
        LaunchShape(rows, Spread::team_per_row, static_cast<int>(rows.rows),
                    team_size, 1, 1, packs_per_lane, 1));
  }

  // Teams of `team_size` threads walking `rows_per_team` rows, each thread's
  // `vector_length` vector lanes holding `packs_per_lane` Packs (1, 2, 4 or
  // 8) of `rows_per_thread` rows at once where they cover a row. Several rows
  // a thread (2 or 4) only where a lane holds one Pack of each, the same
  // Pack of rows that share weight Packs, so that one load of a weight Pack
  // serves them all; otherwise 1.
  static LaunchShape rows_per_vector(const RowFacts& rows, int rows_per_team,
                                     int team_size, int vector_length,
                                     int packs_per_lane, int rows_per_thread) {
    LaunchShape shape(rows, Spread::rows_per_vector,
                      ceil_div(rows.rows, rows_per_team), team_size,
                      vector_length, rows_per_team, packs_per_lane, 1);
    if (shape.sweeps == Sweeps::one && shape.packs_per_lane == 1 &&
        rows.rows_share_weight_packs &&
        (rows_per_thread == 2 || rows_per_thread == 4)) {
      shape.rows_per_thread = rows_per_thread;
    }
    return shape;
  }

  // Rows split across `teams_per_row` teams of `team_size` threads, each
  // thread holding `packs_per_lane` Packs (4 or 8; any other number takes 4)
  // of its team's chunk where they cover it.
  template <class Backend>
  static LaunchShape split_row(const RowFacts& rows, int teams_per_row,
                               int team_size, int packs_per_lane) {
    return held_by_team<Backend>(
        rows,
        LaunchShape(rows, Spread::split_row,
                    static_cast<int>(rows.rows) * teams_per_row, team_size, 1,
                    1, packs_per_lane == 8 ? 8 : 4, teams_per_row));
  }

 private:
  // Held in registers, in one sweep where the lanes' Packs cover the span,
  // else in two of four Packs a lane.
  LaunchShape(const RowFacts& rows, Spread spread_, int league_size_,
              int team_size_, int vector_length_, int rows_per_team_,
              int packs_per_lane_, int teams_per_row_)
      : spread(spread_),
        league_size(league_size_),
        team_size(team_size_),
        vector_length(vector_length_),
        rows_per_team(rows_per_team_),
        packs_per_lane(packs_per_lane_),
        teams_per_row(teams_per_row_),
        span(ceil_div(rows.packs_per_row, teams_per_row_)) {
    if (span > lanes() * packs_per_lane) {
      sweeps = Sweeps::two;
      packs_per_lane = 4;
    }
  }

  // `shape`, a team's, with its rows or chunks held in team scratch where
  // they are x itself, held in one sweep of four or eight Packs a lane, and
  // the Backend's holds_in_scratch takes the shape.
  template <class Backend>
  static LaunchShape held_by_team(const RowFacts& rows, LaunchShape shape) {
    if constexpr (Backend::holds_rows_in_scratch) {
      if (shape.sweeps == Sweeps::one && shape.packs_per_lane >= 4 &&
          rows.loads_x_as_stored && Backend::holds_in_scratch(rows, shape)) {
        shape.holding = Holding::team_scratch;
      }
    }
    return shape;
  }
};

// The lanes of a backward team and the Packs each holds in a sweep, as a
// backend chooses them for a row length.
struct BackwardLanes {
  int team_size;
  int packs_per_lane;
};

// Whether a backward team of more than 256 lanes, bounded to 1024 threads and
// so 64 registers a thread, holds `packs_per_lane` Packs of `pack_width`
// values of `value_bytes` bytes a lane: four; two of 16-bit Packs (more than
// four values); eight of one float or double (logs 89, 112).
constexpr bool held_by_wide_backward_teams(int packs_per_lane, int pack_width,
                                           int value_bytes) {
  return packs_per_lane == 4 || (packs_per_lane == 2 && pack_width > 4) ||
         (packs_per_lane == 8 && pack_width == 1 && value_bytes >= 4);
}

}  // namespace KokkosRMSNorm::Impl

#endif
