#ifndef KOKKOSRMSNORM_IMPL_SPLITROWKERNEL_HPP
#define KOKKOSRMSNORM_IMPL_SPLITROWKERNEL_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Kernel.hpp"
#include "KokkosRMSNorm_RowSplit.hpp"

namespace KokkosRMSNorm::Impl {

// Rows split into chunks of chunk_packs Packs (OneSweep: as many as the
// team's lanes hold at once, at most). Each team takes chunks by
// ticket (see RowSplit) until none is left: it adds up a chunk's squares
// and publishes them, and only then scales the chunk it took before, once
// that chunk's row is complete, reading it again (from L2, where it has
// stayed since). So a team never idles waiting for the other teams of a
// row: by the time it needs a row's sum, it has loaded a whole chunk since
// it published its own part of it. A team waits only with every chunk it
// took published, which keeps the wait free of deadlock (see RowSplit).
template <int PacksPerLane, bool OneSweep, class ExecutionSpace, class Math>
struct SplitRowKernel
    : RMSNormKernel<PacksPerLane, true, OneSweep, ExecutionSpace, Math> {
  using typename Math::accumulation_type;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using Held = typename SplitRowKernel::Held;

  RowSplit<accumulation_type> split;
  int chunk_packs;

  // Packs [begin, end) of the row that ticket names.
  struct Chunk {
    std::size_t row;
    int index;
    int begin;
    int end;
  };

  KOKKOS_INLINE_FUNCTION Chunk chunk_of(int ticket) const {
    const int index = ticket % split.teams_per_row;
    const int begin = index * chunk_packs;
    const int packs = static_cast<int>(this->x.extent(1));
    return {std::size_t(ticket / split.teams_per_row), index, begin,
            begin + chunk_packs < packs ? begin + chunk_packs : packs};
  }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const auto lanes = this->team_lanes(team);
    const int tickets = static_cast<int>(this->rows()) * split.teams_per_row;
    int previous = -1;  // the ticket whose chunk waits to be scaled
    for (;;) {
      int ticket = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](int& taken) { taken = split.take_ticket(); }, ticket);
      if (ticket >= tickets) {
        break;
      }
      const Chunk chunk = chunk_of(ticket);
      Held held = {};  // zeroed as in RMSNormKernel::normalize
      const accumulation_type chunk_sum =
          this->add_up(lanes, chunk.row, chunk.begin, chunk.end, held);
      Kokkos::single(Kokkos::PerTeam(team),
                     [&] { split.publish(chunk.row, chunk.index, chunk_sum); });
      if (previous >= 0) {
        scale_chunk(team, lanes, chunk_of(previous));
      }
      previous = ticket;
    }
    if (previous >= 0) {
      scale_chunk(team, lanes, chunk_of(previous));
    }
  }

  template <class Lanes>
  KOKKOS_FUNCTION void scale_chunk(const member_type& team, const Lanes& lanes,
                                   const Chunk& chunk) const {
    accumulation_type sum = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](accumulation_type& row_sum) { row_sum = split.row_sum(chunk.row); },
        sum);
    Held held = {};  // filled by the reload
    this->template scale<true>(lanes, chunk.row, chunk.begin, chunk.end,
                               this->rstd(sum), held);
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
