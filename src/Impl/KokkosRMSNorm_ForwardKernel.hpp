// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_FORWARDKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_FORWARDKERNEL_HPP

#include <cstddef>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "Backends/KokkosRMSNorm_Backend.hpp"
#include "KokkosRMSNorm_ForEachIndex.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_RowSplit.hpp"
#include "KokkosRMSNorm_RowSums.hpp"

// The forward team kernels and their launcher, in one file since they share
// the lanes' sweeps: RMSNormKernel (rows a team or a thread's vector lanes),
// SplitRowKernel (rows split across teams, through RowSplit), and
// launch_rms_norm, which maps a LaunchShape to one of them. The arithmetic
// they apply is a RowMath (KokkosRMSNorm_RowMath.hpp).

namespace KokkosRMSNorm::Impl {

// Normalizes rows with "lanes": the threads of a team sharing one row
// (TeamPerRow), or the vector lanes of a team thread, each thread owning
// RowsPerThread rows at once. Each lane holds PacksPerLane Packs of each of
// its rows, the same columns in each (so one load of a weight Pack serves
// them all), loaded before any is used so that they are all in flight at
// once: in registers, or InScratch, in the team's scratch, copied there
// without passing through registers where the backend allows it (see its
// copy_to_scratch). A Resident row, which the lanes cover in one sweep,
// stays held between the sum of squares and the scaling, so x is read from
// memory once; a longer row is swept twice. Each lane takes exactly one
// index of its range (the range's extent is the lane count), so `held` and
// each scratch slot are written and read by the same lane, and so is each
// element of sum: no barrier is needed between them. StaticLanes, where not
// 0, is the lane count as a constant: for rows of Math::static_packs Packs
// that the lanes cover exactly, so that the compiler drops the sweeps'
// bounds and unrolls the sums over warps.
template <int PacksPerLane, int RowsPerThread, bool TeamPerRow, bool Resident,
          bool InScratch, class ExecutionSpace, class Math, int StaticLanes = 0>
struct RMSNormKernel : Math {
  using typename Math::accumulation_type;
  using typename Math::pack;
  using value_type = typename Math::value_type;
  using backend = Backend<ExecutionSpace>;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using weight_pack = decltype(std::declval<const Math&>().weight.load(0));
  // Rows load the weight together with x, so that a row's chain of
  // latencies is one load, the reduction and the store, as torch.compile's
  // persistent reductions do (run 28) -- where a lane's values, widened,
  // take 16 registers or fewer (64 bytes), which leaves the registers for
  // it (four 16-bit Packs a lane spill, and so did eight f64 ones, log 96).
  // Rows in scratch do so for 32-bit weights; 16-bit ones load late, so
  // that a lane needs 32 registers (log 34).
  static constexpr bool loads_weight_early =
      Resident &&
      (InScratch
           ? Math::width <= 4
           : PacksPerLane * Math::width * sizeof(accumulation_type) <= 64);
  // Registers a thread, which the backend may cap through LaunchBounds (CUDA:
  // teams a SM = 65536 / (max_threads x registers)): 64 by default, so that
  // every team size a shape names can launch and two 512-thread teams of
  // eight Packs a thread share a SM; 48 for four 16-bit Packs a thread held
  // in registers, so that five 256-thread teams share a SM instead of four
  // (log 31; f32 kernels adding a residual spill at 48, and so did bf16
  // kernels quantizing y, 176-328 bytes, which ran at 24% of the copy, log
  // 64; shifted 16-bit rows take 56-64 for four Packs a lane, log 78); 32
  // where a lane holds neither x nor the weight, so that four 512-thread
  // teams share a SM (log 34).
  static constexpr bool holds_four_narrow_packs =
      Resident && !InScratch && PacksPerLane == 4 && Math::width > 4 &&
      !Math::quantizes && Math::rows_start_on_packs;
  static constexpr bool holds_nothing = InScratch && !loads_weight_early;
  static constexpr unsigned registers = holds_nothing             ? 32
                                        : holds_four_narrow_packs ? 48
                                                                  : 64;
  static constexpr unsigned max_threads = holds_four_narrow_packs ? 640
                                          : PacksPerLane == 8 && !holds_nothing
                                              ? 512
                                              : 1024;
  using launch_bounds =
      typename backend::template launch_bounds<max_threads, registers>;
  // nvcc leaves the loops over a lane's Packs rolled once they quantize
  // 16-bit values, load shifted 16-bit Packs or hold eight bfloat16 Packs,
  // and their run-time index moves the held Packs to local memory (80-128
  // bytes a thread, logs 72, 78, 106): those kernels unroll them in the
  // source. Others keep the compiler's choice, under which their launch
  // shapes were tuned (forced, some spill more, and f32 quantized rows of
  // 16384 ran 17% slower, log 72).
  static constexpr bool unrolled_in_source =
      sizeof(value_type) < 4 &&
      (Math::quantizes || !Math::rows_start_on_packs ||
       (is_bfloat16_v<value_type> && PacksPerLane == 8));
  // Lanes holding 32 or more 16-bit values re-read each held Pack for the
  // scaling (HeldPack::reread) rather than keep the values widened for the
  // sum of squares, which took twice the registers and spilled (log 106).
  static constexpr bool rereads_held_packs =
      sizeof(value_type) < 4 && PacksPerLane * Math::width >= 32;
  static_assert(Resident || !InScratch,
                "rows swept twice are held in registers");
  static_assert(RowsPerThread == 1 || (!TeamPerRow && Resident && !InScratch &&
                                       Math::rows_share_weight_packs),
                "only vector lanes hold several rows, in registers, of one "
                "weight Pack");
  // The team's size where it is a constant, a lane a thread, else 0 (the
  // backends' for_each_lane).
  static constexpr int team_lanes = TeamPerRow ? StaticLanes : 0;
  static_assert(StaticLanes == 0 ||
                    (Resident && std::size_t(StaticLanes) * PacksPerLane ==
                                     Math::static_packs),
                "static lanes cover a row of static length exactly");

  int rows_per_team;
  int lane_count;  // the team size for TeamPerRow, else the vector length

  // The lanes that share a row (lane_count), as a constant where it is one.
  KOKKOS_INLINE_FUNCTION int row_lanes() const {
    return StaticLanes > 0 ? StaticLanes : lane_count;
  }

  // The team scratch a team of `lanes` lanes takes to hold its Packs.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int lanes) {
    return InScratch ? std::size_t(lanes) * PacksPerLane * sizeof(pack) : 0;
  }

  // Where the team holds its Packs in scratch (null if it does not): Pack j
  // of a sweep starting at Pack `start` in slot j - start.
  KOKKOS_INLINE_FUNCTION pack* scratch_slots(const member_type& team) const {
    if constexpr (InScratch) {
      return static_cast<pack*>(team.team_scratch(0).get_shmem_aligned(
          scratch_bytes(row_lanes()), alignof(pack)));
    } else {
      return nullptr;
    }
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(this->packs_per_row());
    const auto whole_row = [](accumulation_type sum) { return sum; };
    if constexpr (TeamPerRow) {
      normalize(Kokkos::TeamThreadRange(team, row_lanes()), team.league_rank(),
                1, 0, packs, whole_row, scratch_slots(team));
    } else {
      const std::size_t rows = this->x.extent(0);
      const std::size_t first = std::size_t(team.league_rank()) * rows_per_team;
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, rows_per_team / RowsPerThread),
          [&](int thread) {
            const std::size_t row = first + std::size_t(thread) * RowsPerThread;
            if (row < rows) {
              normalize(
                  Kokkos::ThreadVectorRange(team, row_lanes()), row,
                  static_cast<int>(rows - row < RowsPerThread ? rows - row
                                                              : RowsPerThread),
                  0, packs, whole_row, nullptr);
            }
          });
    }
  }

  // Calls f(k, j) for each Pack j before `end` of the sweep starting at
  // Pack `start` that lane holds as held[k].
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each_held(int lane, int start, int end,
                                                 F&& f) const {
    for_each_index<PacksPerLane, unrolled_in_source>([&](int k) {
      const int j = start + lane + k * row_lanes();
      if (j < end) {
        f(k, j);
      }
    });
  }

  // Calls f(r) for each of the `rows` rows (at most RowsPerThread) a lane
  // holds at once.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_row(int rows, F&& f) {
    for_each_index<RowsPerThread, unrolled_in_source>([&](int r) {
      if (r < rows) {
        f(r);
      }
    });
  }

  // Normalizes Packs [begin, end) of `rows` rows from `first_row` (several
  // only for vector lanes), whose sums of squares row_sum(sum over those
  // Packs) gives: all of it, or a chunk of it when teams split the row.
  // `slots` are the team's scratch_slots.
  template <class Lanes, class RowSum>
  KOKKOS_FUNCTION void normalize(const Lanes& lanes, std::size_t first_row,
                                 int rows, int begin, int end,
                                 const RowSum& row_sum,
                                 [[maybe_unused]] pack* slots) const {
    const int sweep = row_lanes() * PacksPerLane;  // Packs one sweep covers
    const int sweeps_end =
        Resident ? begin + sweep
                 : begin + (end - begin + sweep - 1) / sweep * sweep;
    // Zeroed because g++ cannot see that each read follows a load.
    HeldPack<pack> held[RowsPerThread][PacksPerLane] = {};
    HeldPack<weight_pack> held_weight[PacksPerLane] = {};  // if loaded early
    // The weight's factors of Pack k of a sweep, Pack j of the row.
    const auto factors_of = [&](int k, int j) {
      return this->weight.template convert<backend, accumulation_type>(
          loads_weight_early ? held_weight[k].value()
                             : this->weight_at(first_row, j));
    };
    // The rows' sums of squares, and where each row has a quantization
    // scale, their largest |h * weight factor| too, in the same sweep and
    // reduction (the largest |y| is that times rstd).
    using FirstSweep =
        std::conditional_t<Math::scales_each_row,
                           RowSumsAndMaxima<accumulation_type, RowsPerThread>,
                           RowSums<accumulation_type, RowsPerThread>>;
    FirstSweep first_sweep;
    backend::template reduce_over_lanes<!TeamPerRow, team_lanes>(
        lanes, row_lanes(),
        [&](int lane, FirstSweep& values) {
          for (int start = begin; start < sweeps_end; start += sweep) {
            for_each_held(lane, start, end, [&](int k, int j) {
              if constexpr (InScratch) {
                backend::copy_to_scratch(&slots[j - start],
                                         &this->x(first_row, j));
              } else {
                for_each_row(rows, [&](int r) {
                  held[r][k] = HeldPack<pack>::hold(
                      this->template load<backend>(first_row + r, j));
                });
              }
              if constexpr (loads_weight_early) {
                held_weight[k] =
                    HeldPack<weight_pack>::hold(this->weight_at(first_row, j));
              }
            });
            if constexpr (InScratch) {
              backend::wait_for_copies_to_scratch();
            }
            for_each_held(lane, start, end, [&](int k, int j) {
              const auto h = [&](int r) {
                return InScratch ? slots[j - start] : held[r][k].value();
              };
              if constexpr (Math::scales_each_row) {
                const auto factors = factors_of(k, j);
                for_each_row(rows, [&](int r) {
                  Math::template add_squares<backend>(h(r), values[r]);
                  values.join(
                      RowsPerThread + r,
                      this->template largest_product<backend>(h(r), factors));
                });
              } else {
                for_each_row(rows, [&](int r) {
                  Math::template add_squares<backend>(h(r), values[r]);
                });
              }
            });
          }
        },
        first_sweep);
    accumulation_type rstd[RowsPerThread] = {};
    accumulation_type largest[RowsPerThread] = {};  // where rows have scales
    accumulation_type multiplier[RowsPerThread] = {};
    for_each_row(rows, [&](int r) {
      rstd[r] = this->rstd(row_sum(first_sweep[r]));
      if constexpr (Math::scales_each_row) {
        largest[r] = rstd[r] * first_sweep[RowsPerThread + r];
      }
      multiplier[r] = this->multiplier(largest[r]);
    });
    backend::template for_each_lane<team_lanes>(lanes, [&](int lane) {
      if (lane == 0 && begin == 0) {
        for_each_row(rows, [&](int r) {
          this->store_rstd(first_row + r, rstd[r]);
          this->store_row_scale(first_row + r, largest[r]);
        });
      }
      for (int start = begin; start < sweeps_end; start += sweep) {
        if constexpr (!Resident) {
          for_each_held(lane, start, end, [&](int k, int j) {
            held[0][k] = HeldPack<pack>::hold(this->reload(first_row, j));
          });
        }
        for_each_held(lane, start, end, [&](int k, int j) {
          const auto factors = factors_of(k, j);
          for_each_row(rows, [&](int r) {
            this->template store_scaled<backend>(
                first_row + r, j,
                InScratch            ? slots[j - start]
                : rereads_held_packs ? held[r][k].template reread<backend>()
                                     : held[r][k].value(),
                rstd[r], factors, multiplier[r]);
          });
        });
      }
    });
  }
};

// Rows split into chunks of chunk_packs Packs, a team each: a team holds its
// chunk as RMSNormKernel holds a row, and the teams of a row add their sums
// of squares through `split` before they scale. A team's chunk is named by
// its ticket, not its league rank (see RowSplit::take_ticket).
template <int PacksPerLane, bool Resident, bool InScratch, class ExecutionSpace,
          class Math>
struct SplitRowKernel : RMSNormKernel<PacksPerLane, 1, true, Resident,
                                      InScratch, ExecutionSpace, Math> {
  using typename Math::accumulation_type;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using row_sums = RowSums<accumulation_type, 1>;
  using backend = Backend<ExecutionSpace>;

  RowSplit<accumulation_type> split;
  int chunk_packs;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    int ticket = 0;
    Kokkos::single(
        Kokkos::PerTeam(team), [&](int& taken) { taken = split.take_ticket(); },
        ticket);
    const std::size_t row = ticket / split.teams_per_row;
    const int chunk = ticket % split.teams_per_row;
    // Exactly one team sums and posts each chunk: the one that claims it.
    // A team that stores sum while it loads claims its chunk first, and if
    // another team claimed it, waits until that team has read it, so that
    // writing sum in place cannot change what it reads. Other teams claim
    // their chunk when they post; they write y only once their row's sum is
    // known, when every chunk has been read.
    int owns = 1;
    if constexpr (Math::adds_residual) {
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](int& claimed) {
            claimed = split.claim(row, chunk);
            if (!claimed) {
              split.wait_until_posted(row, chunk);
            }
          },
          owns);
    }
    const Kokkos::pair<int, int> packs = packs_of(chunk);
    this->normalize(
        Kokkos::TeamThreadRange(team, this->row_lanes()), row, 1, packs.first,
        packs.second,
        [&](accumulation_type chunk_sum) {
          return row_sum(team, row, chunk, owns, chunk_sum);
        },
        this->scratch_slots(team));
  }

  // The Packs [begin, end) of a row's chunk.
  KOKKOS_FUNCTION Kokkos::pair<int, int> packs_of(int chunk) const {
    const int packs = static_cast<int>(this->packs_per_row());
    const int begin = chunk * chunk_packs;
    return {begin, begin + chunk_packs < packs ? begin + chunk_packs : packs};
  }

  // The row's sum of squares, this team's chunk summing to chunk_sum
  // (posted unless another team claimed the chunk first). A sum of squares
  // is never negative, so -1 says the others did not arrive in time.
  KOKKOS_FUNCTION accumulation_type row_sum(const member_type& team,
                                            std::size_t row, int chunk,
                                            bool owns,
                                            accumulation_type chunk_sum) const {
    accumulation_type sum = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](accumulation_type& row_sum) {
          if (Math::adds_residual ? owns : split.claim(row, chunk)) {
            split.post(row, chunk, chunk_sum);
          }
          row_sum = split.wait_patiently_for_row(row) ? split.row_sum(row)
                                                      : accumulation_type(-1);
        },
        sum);
    if (!(sum < 0)) {  // arrived (a NaN sum too)
      return sum;
    }
    for (int c = 0; c < split.teams_per_row; ++c) {
      int claimed = 0;
      Kokkos::single(
          Kokkos::PerTeam(team), [&](int& mine) { mine = split.claim(row, c); },
          claimed);
      if (claimed) {
        const accumulation_type missing = chunk_sum_of_squares(team, row, c);
        Kokkos::single(Kokkos::PerTeam(team),
                       [&]() { split.post(row, c, missing); });
      }
    }
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](accumulation_type& row_sum) {
          split.wait_for_row(row);
          row_sum = split.row_sum(row);
        },
        sum);
    return sum;
  }

  // The sum of squares of the row's chunk `chunk`, from x: the same lanes
  // adding the same Packs in the same order as normalize, so the same bits
  // as the chunk's own team gets.
  KOKKOS_FUNCTION accumulation_type chunk_sum_of_squares(
      const member_type& team, std::size_t row, int chunk) const {
    const Kokkos::pair<int, int> packs = packs_of(chunk);
    const int sweep = this->row_lanes() * PacksPerLane;
    row_sums sums;
    backend::template reduce_over_lanes<false, 0>(
        Kokkos::TeamThreadRange(team, this->row_lanes()), this->row_lanes(),
        [&](int lane, row_sums& lane_sums) {
          for (int start = packs.first; start < packs.second; start += sweep) {
            this->for_each_held(lane, start, packs.second, [&](int, int j) {
              Math::template add_squares<backend>(
                  this->template peek<backend>(row, j), lane_sums[0]);
            });
          }
        },
        sums);
    return sums[0];
  }
};

// Launches the kernel `shape` names for `math`, labelled `label`; `workspace`
// holds RowSplit::bytes when the shape splits rows. The shape was built for
// math's rows (RowFacts::of(math)); this maps it to its kernel, deciding
// nothing.
template <class ExecutionSpace, class Math>
void launch_rms_norm(const char* label, const ExecutionSpace& space,
                     const Math& math, const LaunchShape& shape,
                     std::byte* workspace) {
  using Spread = LaunchShape::Spread;
  const int lane_count = shape.lanes();
  const auto launch = [&](const auto& kernel) {
    using Kernel = std::decay_t<decltype(kernel)>;
    using Policy =
        Kokkos::TeamPolicy<ExecutionSpace, typename Kernel::launch_bounds>;
    Kokkos::parallel_for(
        label,
        Policy(space, shape.league_size, shape.team_size, shape.vector_length)
            .set_scratch_size(
                0, Kokkos::PerTeam(Kernel::scratch_bytes(lane_count))),
        kernel);
  };
  // Calls f(std::true_type()) where the shape holds rows or chunks in team
  // scratch, f(std::false_type()) otherwise. LaunchShape holds only x itself
  // there, in one sweep of four or eight Packs a lane, where the backend
  // holds rows in scratch: only those kernels are instantiated.
  const auto with_holding = [&](auto packs_per_lane, auto resident,
                                const auto& f) {
    constexpr int per_lane = decltype(packs_per_lane)::value;
    if constexpr (decltype(resident)::value && per_lane >= 4 &&
                  Math::loads_x_as_stored &&
                  Backend<ExecutionSpace>::holds_rows_in_scratch) {
      if (shape.holding == LaunchShape::Holding::team_scratch) {
        return f(std::true_type());
      }
    }
    f(std::false_type());
  };
  using std::integral_constant;
  const bool one_sweep = shape.sweeps == LaunchShape::Sweeps::one;
  // A row's own quantization scale needs the row's largest |y|, which teams
  // splitting it do not find: such rows are not split (their entry points
  // take no workspace).
  if constexpr (!Math::scales_each_row) {
    if (shape.spread == Spread::split_row) {
      // Four or eight Packs a lane, the choices for split rows.
      const auto launch_split = [&](auto packs_per_lane, auto resident) {
        const auto split = RowSplit<typename Math::accumulation_type>::zeroed(
            space, workspace, math.rows(), shape.teams_per_row);
        with_holding(packs_per_lane, resident, [&](auto in_scratch) {
          launch(
              SplitRowKernel<decltype(packs_per_lane)::value,
                             decltype(resident)::value,
                             decltype(in_scratch)::value, ExecutionSpace, Math>{
                  {math, 1, lane_count}, split, shape.span});
        });
      };
      if (!one_sweep) {
        return launch_split(integral_constant<int, 4>(), std::false_type());
      }
      if (shape.packs_per_lane == 8) {
        return launch_split(integral_constant<int, 8>(), std::true_type());
      }
      return launch_split(integral_constant<int, 4>(), std::true_type());
    }
  }
  const auto launch_rows = [&](auto packs_per_lane, auto resident) {
    constexpr int per_lane = decltype(packs_per_lane)::value;
    constexpr bool holds_row = decltype(resident)::value;
    if (shape.spread == Spread::team_per_row) {
      with_holding(packs_per_lane, resident, [&](auto in_scratch) {
        const auto launch_team_per_row = [&](auto static_lanes) {
          launch(RMSNormKernel<per_lane, 1, true, holds_row,
                               decltype(in_scratch)::value, ExecutionSpace,
                               Math, decltype(static_lanes)::value>{
              math, shape.rows_per_team, lane_count});
        };
        // A row of static length that the team's lanes cover exactly, held
        // in registers, takes their count as a constant too (a decode step's
        // kernel; in scratch it ran 14% slower, log 68).
        constexpr std::size_t exact_lanes = Math::static_packs / per_lane;
        if constexpr (holds_row && !decltype(in_scratch)::value &&
                      Math::static_packs % per_lane == 0 && exact_lanes > 0 &&
                      exact_lanes <= 1024) {
          if (std::size_t(lane_count) == exact_lanes) {
            return launch_team_per_row(
                integral_constant<int, static_cast<int>(exact_lanes)>());
          }
        }
        launch_team_per_row(integral_constant<int, 0>());
      });
    } else {
      const auto launch_lanes = [&](auto rows_per_thread) {
        launch(RMSNormKernel<per_lane, decltype(rows_per_thread)::value, false,
                             holds_row, false, ExecutionSpace, Math>{
            math, shape.rows_per_team, lane_count});
      };
      // Vector lanes of one Pack hold it for 1, 2 or 4 rows at once.
      if constexpr (holds_row && per_lane == 1 &&
                    Math::rows_share_weight_packs) {
        if (shape.rows_per_thread == 2) {
          return launch_lanes(integral_constant<int, 2>());
        }
        if (shape.rows_per_thread == 4) {
          return launch_lanes(integral_constant<int, 4>());
        }
      }
      launch_lanes(integral_constant<int, 1>());
    }
  };
  if (!one_sweep) {
    // Longer rows than one sweep are swept four Packs a lane at a time.
    return launch_rows(integral_constant<int, 4>(), std::false_type());
  }
  switch (shape.packs_per_lane) {
    case 1:
      return launch_rows(integral_constant<int, 1>(), std::true_type());
    case 2:
      return launch_rows(integral_constant<int, 2>(), std::true_type());
    case 4:
      return launch_rows(integral_constant<int, 4>(), std::true_type());
    default:
      return launch_rows(integral_constant<int, 8>(), std::true_type());
  }
}

}  // namespace KokkosRMSNorm::Impl

#endif
