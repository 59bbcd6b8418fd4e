// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKENDS_GPU_GPUBACKEND_HPP
#define KOKKOSRMSNORM_IMPL_BACKENDS_GPU_GPUBACKEND_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "../../KokkosRMSNorm_LaunchShape.hpp"
#include "../../KokkosRMSNorm_Numerics.hpp"
#include "../../KokkosRMSNorm_Pack.hpp"
#include "../KokkosRMSNorm_Portable.hpp"

namespace KokkosRMSNorm::Impl {

// The launch shapes of every GPU backend, tuned on an H200 (CUDA, which
// adds its own instructions in CudaBackend); any other GPU (HIP, SYCL) runs
// them with Kokkos's reductions, in whole warps of its own width.
template <class ExecutionSpace>
struct GpuBackend : PortableBackend {
  // Lanes that run in lockstep: 32 on NVIDIA GPUs, 64 or 32 on AMD ones.
  static int warp_width() {
    return Kokkos::TeamPolicy<ExecutionSpace>::vector_length_max();
  }

  // Value k of `pack` in Accumulation. A bfloat16 is the upper half of a
  // float, so it is widened from the 32-bit word that holds it and its
  // neighbour (little-endian) by a shift or a mask: no 16-bit register takes
  // part, which keeps nvcc's bf16 kernels from spilling (log 74). Host
  // compilers vectorize the lane's own conversion instead (log 81).
  template <class Accumulation, class T, int Width>
  KOKKOS_FORCEINLINE_FUNCTION static Accumulation widened(
      const Pack<T, Width>& pack, int k) {
    if constexpr (is_bfloat16_v<T> && sizeof(T) == 2 && Width % 2 == 0) {
      std::uint32_t words[Width / 2];
      memcpy(words, &pack, sizeof pack);
      const std::uint32_t bits =
          k % 2 == 0 ? words[k / 2] << 16 : words[k / 2] & 0xffff0000u;
      float value;
      memcpy(&value, &bits, sizeof value);
      return value;
    } else {
      return static_cast<Accumulation>(pack.lane[k]);
    }
  }

  static constexpr bool holds_rows_in_scratch = true;

  // The most team scratch a team holds its rows in: Kokkos gives a team at
  // most 48 KB of scratch on CUDA, some of it its own.
  static constexpr std::size_t max_row_scratch_bytes = 32768;

  // Whether a call of `rows` is bound by each row's chain of latencies
  // rather than by bandwidth: at most 4 MB of Packs, a decode step's.
  static bool latency_bound(const RowFacts& rows) {
    return rows.rows * rows.packs_per_row <= 262144;
  }

  // Whether a team of `shape` holds its row of `rows` (or its chunk of one),
  // swept once, in team scratch rather than in registers: where that is above
  // 16 KB, so registers would leave a SM two to four such teams, and up to
  // max_row_scratch_bytes; smaller rows ran slower in scratch (log 34). Not
  // in a latency-bound call, whose teams are too few for registers to crowd
  // a SM while scratch adds a barrier and a round trip to each row's chain
  // (f32 rows of 8192 0.8 us faster a call), except for chunks of split
  // float rows, which took 0.25-0.29 us longer in registers (log 125).
  static bool holds_in_scratch(const RowFacts& rows, const LaunchShape& shape) {
    const std::size_t bytes =
        std::size_t(shape.team_size) * shape.packs_per_lane * rows.pack_bytes;
    const bool float_chunk =
        shape.spread == LaunchShape::Spread::split_row && rows.pack_width <= 4;
    return (!latency_bound(rows) || float_chunk) && bytes > 16384 &&
           bytes <= max_row_scratch_bytes;
  }

  // The shape for `rows`, split across at most rows.max_teams_per_row teams.
  static LaunchShape choose_launch_shape(const RowFacts& rows) {
    const std::size_t packs_per_row = rows.packs_per_row;
    const int warp = warp_width();
    if (packs_per_row <= std::size_t(4) * warp) {
      // Short rows: a row per vector of lanes, each lane holding
      // packs_a_lane Packs in all. A row of a warp's Packs or fewer gets a
      // lane a Pack (at a warp, Kokkos's reduction over the lanes needs no
      // lane mask), and each lane holds its Pack of packs_a_lane rows at
      // once, so that one weight Pack serves them all (torch.compile's
      // layout, log 45); a longer row gets as few lanes as hold it in
      // packs_a_lane Packs a lane (log 45). Teams of at least 4 rows and of
      // 64 threads for rows held one at a time, and of a warp for rows held
      // several at a time, so that teams are few enough for the block
      // scheduler (a team per row halves the bandwidth of short rows, log 45;
      // teams of 16 threads held bf16 rows of 128 at 55% of the copy
      // ceiling, of 32 at 89%, log 63). Lanes of 16-bit Packs hold four (log
      // 45); lanes of Packs of four values or fewer hold two (run 27), and so
      // do the lanes of a call of at most 65536 Packs, which is latency-bound:
      // two Packs shorten each row's chain of loads (run 11).
      const int packs_a_lane =
          rows.pack_width <= 4 || rows.rows * packs_per_row <= 65536 ? 2 : 4;
      const bool fits_a_warp = packs_per_row <= std::size_t(warp);
      const int rows_per_thread = fits_a_warp ? packs_a_lane : 1;
      const int packs_a_lane_a_row = packs_a_lane / rows_per_thread;
      int lanes = 1;
      while (lanes < warp &&
             std::size_t(packs_a_lane_a_row) * lanes < packs_per_row) {
        lanes *= 2;
      }
      const int rows_per_team =
          std::max({4, 64 / lanes, warp / lanes * rows_per_thread});
      return LaunchShape::rows_per_vector(
          rows, rows_per_team, rows_per_team / rows_per_thread, lanes,
          packs_per_lane_for(packs_per_row, lanes), rows_per_thread);
    }
    // A call of at most 4 MB of Packs (a decode step's) is bound by each
    // row's chain of latencies, not by how many teams share a SM: lanes
    // hold few values in as many threads as cover the row, so that the
    // weight loads beside x and each lane's chain of adds is short. 16-bit
    // rows of 2048-8192 took 0.6-0.8 us less a call at 16 values a lane
    // than at four Packs under graph replay (log 67); 8 values a lane took
    // in-place add_rms_norm 0.1-0.4 us less again on an H100 where that
    // needs at most 512 threads, and 1024 threads took longer (log 119).
    if (rows.pack_width >= 4 && latency_bound(rows)) {
      const int packs_of_8_values = std::max(1, 8 / rows.pack_width);
      const int packs_a_lane =
          packs_per_row <= std::size_t(512) * packs_of_8_values
              ? packs_of_8_values
              : 2 * packs_of_8_values;
      if (packs_per_row <= std::size_t(1024) * packs_a_lane) {
        return LaunchShape::team_per_row<GpuBackend>(
            rows, ceil_div(ceil_div(packs_per_row, packs_a_lane), warp) * warp,
            packs_a_lane);
      }
    }
    // Rows of 16-bit values split only where teams may hold their chunks in
    // scratch (x itself, no residual): held in registers, split 16-bit rows
    // ran slower than one team sweeping each row twice (run 12); in
    // scratch, faster (log 34).
    const bool may_split =
        rows.max_teams_per_row > 1 &&
        (rows.pack_bytes / rows.pack_width >= 4 || rows.loads_x_as_stored);
    // The longest rows that 512 threads sweeping them twice serve best.
    constexpr std::size_t most_packs_swept_by_512 = 5120;
    if (packs_per_row > most_packs_swept_by_512 && may_split) {
      // Longer rows than a team holds: chunks of 256 threads x 8 Packs, as
      // many as rows are long (fewer, swept twice, beyond
      // max_teams_per_row), so a team holds its chunk in registers and x
      // is read once; 256 x 8 was the best chunk, a team a row still
      // better up to 4096 Packs (runs 12 and 15), and up to 5120 Packs,
      // where three chunks are short, a team sweeping the row twice (logs
      // 98, 100).
      constexpr std::size_t chunk = std::size_t(256) * 8;
      const int teams =
          std::min(ceil_div(packs_per_row, chunk), rows.max_teams_per_row);
      return LaunchShape::split_row<GpuBackend>(rows, teams, 256, 8);
    }
    if (packs_per_row <= std::size_t(512) * 8) {
      // A team per row held in registers: four Packs a thread up to 256
      // threads, then eight where a thread's 32 values fit its 64 registers,
      // so four teams share a SM instead of two (run 20); eight 16-bit Packs
      // a thread spill, so they keep four up to 512 threads (runs 20 and
      // 24), then take eight, re-read for the scaling so that they spill
      // none (HeldPack::reread; 92-93% of the copy ceiling where 256
      // threads sweeping bfloat16 rows twice reached 69-84%, log 106). f64
      // Packs, of two values, start at eight (6-13% less time than four, log
      // 97) but in latency-bound calls, as above (eight took 0.5-1.2 us a call
      // more, log 99). Float rows with a residual take two: four Packs of x
      // and four of the residual in flight took 64 registers a lane, half a
      // SM's threads (in place f32 N = 1000 87% of the copy against 96%,
      // log 120). Teams of at least 64 threads.
      const int packs_a_lane = rows.pack_width == 2 && !latency_bound(rows) ? 8
                               : rows.pack_width == 4 && !rows.loads_x_as_stored
                                   ? 2
                                   : 4;
      const int most_threads_at_packs_a_lane = rows.pack_width <= 4 ? 256 : 512;
      const int per_lane = packs_per_lane_for(
          packs_per_row,
          std::clamp(
              ceil_div(ceil_div(packs_per_row, packs_a_lane), warp) * warp, 64,
              most_threads_at_packs_a_lane));
      return LaunchShape::team_per_row<GpuBackend>(
          rows, ceil_div(ceil_div(packs_per_row, per_lane), warp) * warp,
          per_lane);
    }
    // Longer rows than registers hold, swept twice: by 512 threads up to
    // 5120 Packs (0.80-0.89 of the time of 1024 threads, and 0.86-0.93 of
    // three short chunks, log 100), by the largest team beyond.
    return LaunchShape::team_per_row<GpuBackend>(
        rows, packs_per_row <= most_packs_swept_by_512 ? 512 : 1024, 4);
  }

  // Rows per backward team, for rows of `row_bytes` bytes of x (as many of
  // dy): as many teams as hold 8 MB of dy and x at once, at least 256 and at
  // most 1024, so that each team walks as many rows as keep the device's
  // memory busy and the partial weight gradients are few (log 37).
  static int backward_rows_per_team(std::size_t rows, std::size_t row_bytes) {
    constexpr std::size_t held_at_once = std::size_t(8) << 20;
    const std::size_t teams =
        std::clamp<std::size_t>(held_at_once / (2 * row_bytes), 256, 1024);
    return std::max(1, ceil_div(rows, teams));
  }

  // The lanes of a backward team and the Packs each holds, for rows of
  // `packs_per_row` Packs of `pack_width` values of `value_bytes` bytes, in
  // whole warps: about four Packs a lane up to 256 lanes. Longer rows of 16-bit
  // Packs (more than four values) take two Packs a lane up to 1024 lanes, since
  // eight in 256 lanes left one team a SM (log 89); longer rows of wider values
  // take eight Packs a lane in 256 lanes. Then four in up to 1024 lanes, whose
  // 64 registers a lane hold them (16-bit Packs spill 192 bytes a lane, yet
  // took 0.54-0.57 of the time of reading their rows twice, log 109); rows of
  // one float or double a Pack, eight in up to 1024 lanes (0.49-0.82 of the
  // time of two sweeps; 16-bit values took 1.2-1.36 of it, log 112). Longer
  // rows are swept twice by 256 lanes, four Packs a lane.
  static BackwardLanes backward_lanes(std::size_t packs_per_row, int pack_width,
                                      int value_bytes) {
    const int warp = warp_width();
    const auto lanes_for = [&](int per_lane) {
      return std::clamp(
          ceil_div(ceil_div(packs_per_row, per_lane), warp) * warp, warp, 1024);
    };
    const auto fits = [&](int lanes, int per_lane) {
      return packs_per_row <= std::size_t(lanes) * per_lane;
    };
    if (fits(256, 4)) {
      return {lanes_for(4), 4};
    }
    const auto held_by_wide_teams = [&](int per_lane) {
      return held_by_wide_backward_teams(per_lane, pack_width, value_bytes);
    };
    if (held_by_wide_teams(2) && fits(1024, 2)) {
      return {lanes_for(2), 2};
    }
    if (pack_width <= 4 && fits(256, 8)) {
      return {256, 8};
    }
    if (fits(1024, 4)) {
      return {lanes_for(4), 4};
    }
    if (held_by_wide_teams(8) && fits(1024, 8)) {
      return {lanes_for(8), 8};
    }
    return {256, 4};
  }

  // The vector lanes (Packs of `pack_bytes`) and threads of a team adding the
  // partial weight gradients: 128 bytes of Packs a group, so that a warp
  // reads whole cache lines, and 256 threads a team.
  static int dweight_columns(std::size_t pack_bytes) {
    return std::max(1, static_cast<int>(128 / pack_bytes));
  }
  static int dweight_threads(std::size_t pack_bytes) {
    return 256 / dweight_columns(pack_bytes);
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
