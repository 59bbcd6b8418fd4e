// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_BACKWARDKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_BACKWARDKERNEL_HPP

#include <algorithm>
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "Backends/KokkosRMSNorm_Backend.hpp"
#include "KokkosRMSNorm_ForEachIndex.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_None.hpp"
#include "KokkosRMSNorm_Numerics.hpp"
#include "KokkosRMSNorm_Pack.hpp"
#include "KokkosRMSNorm_WeightFactors.hpp"

// The backward kernels and their launcher, in one file since the launch
// carves the workspace that both kernels share: BackwardPass (what a pass
// reads and writes), BackwardKernel (dx and the groups' partial weight
// gradients, on a GPU; the host's cores run the backend's kernel),
// SumPartials (their sum, in a fixed order) and launch_rms_norm_backward.

namespace KokkosRMSNorm::Impl {

// What one backward pass reads and writes, rows of Packs, and its
// constants, as every backward kernel takes them. For each row, with g = dy
// * weight factor:
//   dx = rstd * g - x * rstd^3 * sum(g * x) / N,
// and, unless Partials is None, the partial weight gradient of each group of
// rows_per_group consecutive rows
//   partials(group, j) = sum over the group's rows of dy(row, j) * x(row, j)
//   * rstd(row)
// in the accumulation type, always added in row order, so it is the same
// bits on every run.
template <class DYRows, class XRows, class Weight, class RstdValues,
          class DXRows, class Partials>
struct BackwardPass {
  using pack = typename DXRows::non_const_value_type;
  using value_type = typename pack::value_type;
  using accumulation_type = accumulation_type_t<value_type>;
  // Whether the pass sums partial weight gradients (dweight is wanted).
  static constexpr bool sums_weight = !is_none_v<Partials>;
  static constexpr int width = pack::width;

  DYRows dy;
  XRows x;
  Weight weight;
  RstdValues rstd;
  DXRows dx;
  Partials partials;
  int rows_per_group;
  accumulation_type inverse_n;  // 1 / elements per row

  // g = dy * weight factor for Pack j, whose dy is `d`.
  template <class Backend>
  KOKKOS_INLINE_FUNCTION void gradient(int j, const pack& d,
                                       accumulation_type (&g)[width]) const {
    for (int w = 0; w < width; ++w) {
      g[w] = Backend::template widened<accumulation_type>(d, w);
    }
    weight.scale(
        weight.template convert<Backend, accumulation_type>(weight.load(j)), g);
  }
};

// The backward pass (BackwardPass) on a GPU, a team per group of rows, each
// thread of the team a lane holding PacksPerLane Packs of dy and x. The lane
// that owns Pack j adds its partial weight gradients. A Resident row, which
// the lanes cover in one sweep, is read once and the partial sums stay in
// registers until the group ends; a longer row is read twice and its
// partial sums are added in the workspace once a block of RowsPerBlock rows.
// As in RMSNormKernel, each lane takes exactly one index of its range.
// InScratch, a Resident row's dy and x are held in team scratch instead of
// registers, and each lane copies its Packs of the group's next row into its
// slots as soon as it has used them, so that the next row's loads are in flight
// while the team finishes the current one (see the backend's copy_to_scratch).
template <int PacksPerLane, bool Resident, bool InScratch, int RowsPerBlock,
          class ExecutionSpace, class Pass>
struct BackwardKernel {
  using pack = typename Pass::pack;
  using value_type = typename Pass::value_type;
  using accumulation_type = typename Pass::accumulation_type;
  static constexpr int width = Pass::width;
  using accumulation_pack = Pack<accumulation_type, width>;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using backend = Backend<ExecutionSpace>;

  Pass pass;

  // nvcc leaves the loops over a lane's 16-bit Packs rolled, and their
  // run-time index moves the held Packs to local memory (log 105): those
  // loops are unrolled in the source. Wider values keep the compiler's
  // choice, which ran float rows of 128-512 and double rows of 5120-8192
  // faster than unrolled (log 109).
  static constexpr bool unrolled_in_source = sizeof(value_type) < 4;

  // Calls f(k, j) for each Pack j of the sweep starting at Pack `start` that
  // lane holds as its k-th.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_held(int lane, int lanes,
                                                        int start, int packs,
                                                        F&& f) {
    for_each_index<PacksPerLane, unrolled_in_source>([&](int k) {
      const int j = start + lane + k * lanes;
      if (j < packs) {
        f(k, j);
      }
    });
  }

  static_assert(Resident || !InScratch,
                "rows swept twice are held in registers");

  // Rows swept twice may be taken in blocks of rows (launch_backward_teams
  // chooses): their sums of g * x first, then, sweep by sweep, their dx,
  // adding the block's partial weight gradients in registers and to the
  // workspace once a block.
  static constexpr int rows_per_block = RowsPerBlock;
  static_assert(rows_per_block == 1 || (!Resident && Pass::sums_weight),
                "only rows swept twice sum weight terms a block at a time");

  // The team scratch a team of `lanes` lanes takes: a slot for each Pack of
  // dy and of x of a row.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int lanes) {
    return InScratch ? 2 * std::size_t(lanes) * PacksPerLane * sizeof(pack) : 0;
  }

  // Copies Pack j of dy and of x of `row` to its slots.
  KOKKOS_INLINE_FUNCTION void copy_to_slots(std::size_t row, int j,
                                            pack* dy_slots,
                                            pack* x_slots) const {
    backend::copy_to_scratch(&dy_slots[j], &pass.dy(row, j));
    backend::copy_to_scratch(&x_slots[j], &pass.x(row, j));
  }

  // Loads the Packs of dy and x of a sweep that lane holds.
  KOKKOS_INLINE_FUNCTION void load(std::size_t row, int lane, int lanes,
                                   int start, int packs,
                                   HeldPack<pack> (&d)[PacksPerLane],
                                   HeldPack<pack> (&v)[PacksPerLane]) const {
    for_each_held(lane, lanes, start, packs, [&](int k, int j) {
      d[k] = HeldPack<pack>::hold(pass.dy(row, j));
      v[k] = HeldPack<pack>::hold(pass.x(row, j));
    });
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int packs = static_cast<int>(pass.x.extent(1));
    const int lanes = team.team_size();
    const int sweep = lanes * PacksPerLane;
    const int sweeps = Resident ? 1 : (packs + sweep - 1) / sweep;
    const int group = team.league_rank();
    const std::size_t first = std::size_t(group) * pass.rows_per_group;
    const std::size_t end = first + pass.rows_per_group;
    const std::size_t last = end < pass.x.extent(0) ? end : pass.x.extent(0);
    // Zeroed because g++ cannot see that each read follows a load.
    HeldPack<pack> d[PacksPerLane] = {}, v[PacksPerLane] = {};
    // The lane's partial weight gradients: of the group (Resident), or of
    // the block and the sweep (rows swept twice in blocks).
    accumulation_pack weight_sums[PacksPerLane] = {};
    [[maybe_unused]] pack *dy_slots = nullptr, *x_slots = nullptr;
    if constexpr (InScratch) {
      const std::size_t bytes = scratch_bytes(lanes) / 2;
      dy_slots = static_cast<pack*>(
          team.team_scratch(0).get_shmem_aligned(bytes, alignof(pack)));
      x_slots = static_cast<pack*>(
          team.team_scratch(0).get_shmem_aligned(bytes, alignof(pack)));
      if (first < last) {
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(team, lanes), [&](int lane) {
              for_each_held(lane, lanes, 0, packs, [&](int, int j) {
                copy_to_slots(first, j, dy_slots, x_slots);
              });
            });
      }
    }
    // Adds a lane's weight terms of Pack j to the group's partial sums, which
    // the group's first terms start.
    const auto add_to_partial = [&](int j, const accumulation_pack& terms,
                                    bool starts) {
      if constexpr (Pass::sums_weight) {
        auto& partial = pass.partials(group, j);
        for (int w = 0; w < width; ++w) {
          partial.lane[w] =
              starts ? terms.lane[w] : partial.lane[w] + terms.lane[w];
        }
      }
    };
    // sum(g * x) over `row`, each lane loading its Packs of a sweep (or
    // waiting for their copies to its slots) before it adds them.
    const auto dot_product = [&](std::size_t row) {
      accumulation_type dot = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, lanes),
          [&](int lane, accumulation_type& partial_dot) {
            for (int start = 0; start < sweeps * sweep; start += sweep) {
              if constexpr (InScratch) {
                backend::wait_for_copies_to_scratch();
              } else {
                load(row, lane, lanes, start, packs, d, v);
              }
              for_each_held(lane, lanes, start, packs, [&](int k, int j) {
                accumulation_type g[width];
                pass.template gradient<backend>(
                    j, InScratch ? dy_slots[j] : d[k].value(), g);
                const pack x_pack = InScratch ? x_slots[j] : v[k].value();
                for (int w = 0; w < width; ++w) {
                  partial_dot +=
                      g[w] *
                      backend::template widened<accumulation_type>(x_pack, w);
                }
              });
            }
          },
          dot);
      return dot;
    };
    for (std::size_t block = first; block < last; block += rows_per_block) {
      const std::size_t rows_left = last - block;
      const int rows = rows_left < std::size_t(rows_per_block)
                           ? static_cast<int>(rows_left)
                           : rows_per_block;
      accumulation_type r[rows_per_block] = {}, c[rows_per_block] = {};
      for_each_index<rows_per_block, true>([&](int b) {
        if (b < rows) {
          r[b] = pass.rstd(block + b);
          c[b] = r[b] * r[b] * r[b] * dot_product(block + b) * pass.inverse_n;
        }
      });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, lanes), [&](int lane) {
        for (int start = 0; start < sweeps * sweep; start += sweep) {
          for_each_index<rows_per_block, true>([&](int b) {
            if (b >= rows) {
              return;
            }
            const std::size_t row = block + b;
            if constexpr (!Resident) {
              load(row, lane, lanes, start, packs, d, v);
            }
            for_each_held(lane, lanes, start, packs, [&](int k, int j) {
              // Held Packs are re-read, not kept widened from the dot
              // product, which took twice the registers and spilled (logs
              // 105, 107).
              const pack dy_pack = InScratch ? dy_slots[j]
                                             : d[k].template reread<backend>(),
                         x_pack = InScratch ? x_slots[j]
                                            : v[k].template reread<backend>();
              accumulation_type g[width];
              pass.template gradient<backend>(j, dy_pack, g);
              pack out;
              accumulation_pack terms;
              for (int w = 0; w < width; ++w) {
                const auto x_value =
                    backend::template widened<accumulation_type>(x_pack, w);
                out.lane[w] = backend::template round_to<value_type>(
                    r[b] * g[w] - c[b] * x_value);
                terms.lane[w] =
                    backend::template widened<accumulation_type>(dy_pack, w) *
                    x_value * r[b];
              }
              pass.dx(row, j) = out;
              if constexpr (InScratch) {
                // The slots' values are used (dx stored from them): the next
                // row may take their place.
                if (row + 1 < last) {
                  copy_to_slots(row + 1, j, dy_slots, x_slots);
                }
              }
              if constexpr (Pass::sums_weight && !Resident &&
                            rows_per_block == 1) {
                // A row alone in its block adds to the workspace at once:
                // kept in registers to the sweep's end, its terms took 23
                // more registers and 1.5x the time of a one-row call (log
                // 109).
                add_to_partial(j, terms, row == first);
              } else if constexpr (Pass::sums_weight) {
                // A Resident row adds to the group's sums; a row of a block
                // to the block's sums of this sweep, from its first row.
                for (int w = 0; w < width; ++w) {
                  weight_sums[k].lane[w] =
                      !Resident && b == 0
                          ? terms.lane[w]
                          : weight_sums[k].lane[w] + terms.lane[w];
                }
              }
            });
          });
          if constexpr (Pass::sums_weight && rows_per_block > 1) {
            for_each_held(lane, lanes, start, packs, [&](int k, int j) {
              add_to_partial(j, weight_sums[k], block == first);
            });
          }
        }
      });
    }
    if constexpr (Pass::sums_weight && Resident) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, lanes), [&](int lane) {
        for_each_held(lane, lanes, 0, packs, [&](int k, int j) {
          pass.partials(group, j) = weight_sums[k];
        });
      });
    }
  }
};

// dweight(j) = the sum of the groups' partials. A team sums `columns`
// consecutive Packs j, one a vector lane, so that a warp reads whole cache
// lines of a group's partials; each of its threads adds every team-size-th
// group in group order, then one lane a column adds the threads' sums in
// thread order. So the bits depend only on the extents and the team shape.
template <class ExecutionSpace, class Partials, class DWeightRow>
struct SumPartials {
  using partial_pack = typename Partials::non_const_value_type;
  using out_pack = typename DWeightRow::non_const_value_type;
  using out_type = typename out_pack::value_type;
  static constexpr int width = out_pack::width;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  Partials partials;
  DWeightRow dweight;
  int columns;  // the vector length

  // The team scratch holding the sums of a team of `threads` threads.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int threads,
                                                          int columns) {
    return std::size_t(threads) * columns * sizeof(partial_pack);
  }

  KOKKOS_INLINE_FUNCTION static void add(partial_pack& sum,
                                         const partial_pack& term) {
    for (int w = 0; w < width; ++w) {
      sum.lane[w] += term.lane[w];
    }
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int groups = static_cast<int>(partials.extent(0));
    const int packs = static_cast<int>(partials.extent(1));
    const int threads = team.team_size();
    const int first = team.league_rank() * columns;
    auto* const sums =
        static_cast<partial_pack*>(team.team_scratch(0).get_shmem_aligned(
            scratch_bytes(threads, columns), alignof(partial_pack)));
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, threads), [&](int thread) {
          Kokkos::parallel_for(
              Kokkos::ThreadVectorRange(team, columns), [&](int column) {
                partial_pack sum = {};
                if (first + column < packs) {
                  for (int group = thread; group < groups; group += threads) {
                    add(sum, partials(group, first + column));
                  }
                }
                sums[thread * columns + column] = sum;
              });
        });
    team.team_barrier();
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, columns), [&](int column) {
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            if (first + column < packs) {
              partial_pack total = sums[column];
              for (int thread = 1; thread < threads; ++thread) {
                add(total, sums[thread * columns + column]);
              }
              out_pack out;
              for (int w = 0; w < width; ++w) {
                out.lane[w] =
                    Backend<ExecutionSpace>::template round_to<out_type>(
                        total.lane[w]);
              }
              dweight(first + column) = out;
            }
          });
        });
  }
};

// How the backward pass spreads rows over a TeamPolicy: `teams` teams of
// team_size threads, each walking rows_per_team rows, its threads sharing
// each row, packs_per_lane Packs a lane.
struct BackwardLaunchShape {
  int teams;
  int rows_per_team;
  int team_size;
  int packs_per_lane;  // 2, 4 or 8, and 4 for rows swept twice
  LaunchShape::Sweeps sweeps;
  LaunchShape::Holding holding;
};

// The backward shape for `rows` rows of `packs` Packs of Width values of
// type T, from the backend's numbers: rows longer than the team's lanes hold
// are swept twice. 16-bit rows that a team of up to 256 lanes holds in one
// sweep, four Packs a lane, are held in scratch where their dy and x fit in
// 32 KB (the backend's max_row_scratch_bytes; see BackwardKernel), since in
// registers they spill; float rows ran slower there, and stay in registers
// (log 36).
template <int Width, class ExecutionSpace, class T>
BackwardLaunchShape choose_backward_launch_shape(std::size_t rows,
                                                 std::size_t packs) {
  using backend = Backend<ExecutionSpace>;
  const int rows_per_team =
      backend::backward_rows_per_team(rows, packs * Width * sizeof(T));
  const BackwardLanes lanes = backend::backward_lanes(packs, Width, sizeof(T));
  BackwardLaunchShape shape{rows == 0 ? 0 : ceil_div(rows, rows_per_team),
                            rows_per_team,
                            lanes.team_size,
                            lanes.packs_per_lane,
                            LaunchShape::Sweeps::one,
                            LaunchShape::Holding::registers};
  if (packs > std::size_t(shape.team_size) * shape.packs_per_lane) {
    shape.sweeps = LaunchShape::Sweeps::two;
  } else if constexpr (Width > 4 && backend::holds_rows_in_scratch) {
    if (shape.packs_per_lane == 4 &&
        2 * std::size_t(shape.team_size) * 4 * sizeof(Pack<T, Width>) <=
            backend::max_row_scratch_bytes) {
      shape.holding = LaunchShape::Holding::team_scratch;
    }
  }
  return shape;
}

// Bytes of workspace the partial weight gradients of rows x packs take.
template <int Width, class ExecutionSpace, class T>
std::size_t backward_workspace_bytes(std::size_t rows, std::size_t packs) {
  return choose_backward_launch_shape<Width, ExecutionSpace, T>(rows, packs)
             .teams *
         packs * sizeof(Pack<accumulation_type_t<T>, Width>);
}

// The backward pass over rows of Packs of Width, in `groups` groups of
// rows_per_group rows, whose partial weight gradients (None where dweight is
// None) take `workspace`.
template <int Width, class ExecutionSpace, class DYRows, class XRows,
          class Weight, class RstdValues, class DXRows, class DWeight>
auto make_backward_pass(const DYRows& dy, const XRows& x, const Weight& weight,
                        const RstdValues& rstd, const DXRows& dx,
                        const DWeight&, std::byte* workspace, int groups,
                        int rows_per_group) {
  const auto dx_packs = as_pack_rows<Width>(dx);
  using pack = typename decltype(dx_packs)::non_const_value_type;
  using accumulation_type = accumulation_type_t<typename pack::value_type>;
  auto partials = [&] {
    if constexpr (is_none_v<DWeight>) {
      return None();
    } else {
      using Partials =
          Kokkos::View<Pack<accumulation_type, Width>**, Kokkos::LayoutRight,
                       typename ExecutionSpace::memory_space,
                       Kokkos::MemoryUnmanaged>;
      return Partials(
          reinterpret_cast<typename Partials::value_type*>(workspace), groups,
          x.extent(1) / Width);
    }
  }();
  return BackwardPass<decltype(as_pack_rows<Width>(dy)),
                      decltype(as_pack_rows<Width>(x)),
                      decltype(weight_factors<Width>(weight)), RstdValues,
                      decltype(dx_packs), decltype(partials)>{
      as_pack_rows<Width>(dy),
      as_pack_rows<Width>(x),
      weight_factors<Width>(weight),
      rstd,
      dx_packs,
      partials,
      rows_per_group,
      accumulation_type(1) / static_cast<accumulation_type>(x.extent(1))};
}

// Launches `pass` as BackwardKernel, the GPUs' kernel, in `shape` (a test
// runs it on the host's backends too), in the kernels the backends' chooser
// takes for Packs of Pass::width values (see GpuBackend::backward_lanes), only
// those instantiated: teams of more than 256 lanes are bounded to 1024
// threads, so 64 registers a thread; smaller ones to 256, so that a lane may
// hold four or eight Packs in more registers; rows swept twice run two teams
// a SM, 128 registers a thread (log 89).
template <class ExecutionSpace, class Pass>
void launch_backward_teams(const char* label, const ExecutionSpace& space,
                           const BackwardLaunchShape& shape, const Pass& pass) {
  using backend = Backend<ExecutionSpace>;
  using std::integral_constant;
  const auto launch = [&](auto packs_per_lane, auto resident, auto in_scratch,
                          auto rows_per_block, auto max_lanes,
                          auto teams_per_sm) {
    using Kernel =
        BackwardKernel<decltype(packs_per_lane)::value,
                       decltype(resident)::value, decltype(in_scratch)::value,
                       decltype(rows_per_block)::value, ExecutionSpace, Pass>;
    Kokkos::parallel_for(
        label,
        Kokkos::TeamPolicy<ExecutionSpace,
                           Kokkos::LaunchBounds<decltype(max_lanes)::value,
                                                decltype(teams_per_sm)::value>>(
            space, shape.teams, shape.team_size)
            .set_scratch_size(
                0, Kokkos::PerTeam(Kernel::scratch_bytes(shape.team_size))),
        Kernel{pass});
  };
  const integral_constant<int, 256> narrow;
  const integral_constant<int, 1024> wide;
  const integral_constant<int, 1> one;
  const integral_constant<int, 4> four;
  const auto held_once = [&] {
    if constexpr (Pass::width > 4) {
      if (shape.packs_per_lane == 2) {
        return launch(integral_constant<int, 2>(), std::true_type(),
                      std::false_type(), one, wide, one);
      }
      // Only 16-bit rows are held in scratch, where the backend holds rows
      // there.
      if constexpr (backend::holds_rows_in_scratch) {
        if (shape.holding == LaunchShape::Holding::team_scratch) {
          return launch(four, std::true_type(), std::true_type(), one, narrow,
                        one);
        }
      }
    } else if (shape.packs_per_lane == 8) {
      if constexpr (held_by_wide_backward_teams(
                        8, Pass::width, sizeof(typename Pass::value_type))) {
        if (shape.team_size > narrow) {
          return launch(integral_constant<int, 8>(), std::true_type(),
                        std::false_type(), one, wide, one);
        }
      }
      return launch(integral_constant<int, 8>(), std::true_type(),
                    std::false_type(), one, narrow, one);
    }
    if (shape.team_size > narrow) {
      return launch(four, std::true_type(), std::false_type(), one, wide, one);
    }
    launch(four, std::true_type(), std::false_type(), one, narrow, one);
  };
  // Rows swept twice with a weight gradient, in teams of several rows, go
  // eight rows a block: added to the workspace once a row, the float partial
  // sums moved more bytes than dy, x and dx of 16-bit rows together (log
  // 108). Rows of one-value Packs ran 1.84x slower in blocks, and teams of
  // one row (decode sizes) up to 1.75x slower (log 109).
  const auto swept_twice = [&] {
    const integral_constant<int, 2> two_teams;
    if constexpr (Pass::sums_weight && Pass::width > 1) {
      if (shape.rows_per_team > 1) {
        return launch(four, std::false_type(), std::false_type(),
                      integral_constant<int, 8>(), narrow, two_teams);
      }
    }
    launch(four, std::false_type(), std::false_type(), one, narrow, two_teams);
  };
  if (shape.teams > 0) {
    if (shape.sweeps == LaunchShape::Sweeps::two) {
      swept_twice();
    } else {
      held_once();
    }
  }
}

// Launches the sum of the partial weight gradients of `pass` into dweight,
// unless the pass has none.
template <class ExecutionSpace, class Pass, class DWeight>
void sum_partials(const ExecutionSpace& space, const Pass& pass,
                  const DWeight& dweight) {
  if constexpr (Pass::sums_weight) {
    using backend = Backend<ExecutionSpace>;
    const auto dweight_packs = as_pack_row<Pass::width>(dweight);
    using Sum = SumPartials<ExecutionSpace, decltype(pass.partials),
                            decltype(dweight_packs)>;
    const int columns =
        backend::dweight_columns(sizeof(typename Sum::partial_pack));
    const int threads =
        backend::dweight_threads(sizeof(typename Sum::partial_pack));
    const auto packs = static_cast<int>(pass.partials.extent(1));
    Kokkos::parallel_for(
        "KokkosRMSNorm::rms_norm_backward_dweight",
        Kokkos::TeamPolicy<ExecutionSpace>(space, ceil_div(packs, columns),
                                           threads, columns)
            .set_scratch_size(
                0, Kokkos::PerTeam(Sum::scratch_bytes(threads, columns))),
        Sum{pass.partials, dweight_packs, columns});
  }
}

// Launches the backward pass on rows of Packs of Width in the shape chosen
// for them, as the backend's own kernel (the host's) or BackwardKernel, and
// the sum of the partial weight gradients (in `workspace`) unless dweight is
// None.
template <int Width, class ExecutionSpace, class DYRows, class XRows,
          class Weight, class RstdValues, class DXRows, class DWeight>
void launch_rms_norm_backward(const ExecutionSpace& space, const DYRows& dy,
                              const XRows& x, const Weight& weight,
                              const RstdValues& rstd, const DXRows& dx,
                              const DWeight& dweight, std::byte* workspace) {
  using backend = Backend<ExecutionSpace>;
  const BackwardLaunchShape shape =
      choose_backward_launch_shape<Width, ExecutionSpace,
                                   typename XRows::non_const_value_type>(
          x.extent(0), x.extent(1) / Width);
  const auto pass = make_backward_pass<Width, ExecutionSpace>(
      dy, x, weight, rstd, dx, dweight, workspace, shape.teams,
      shape.rows_per_team);
  constexpr const char* label = "KokkosRMSNorm::rms_norm_backward";
  if constexpr (backend::uses_team_kernels) {
    launch_backward_teams(label, space, shape, pass);
  } else {
    backend::launch_backward(label, space, shape.teams, pass);
  }
  sum_partials(space, pass, dweight);
}

}  // namespace KokkosRMSNorm::Impl

#endif
