// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP
#define KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP

#include <cstddef>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

template <class T>
KOKKOS_INLINE_FUNCTION T volatile_load(const T& value) {
  return *static_cast<const volatile T*>(&value);
}

// Where the teams sharing rows meet, in a workspace: a count of tickets
// taken; per row, a count of its chunks whose sums of squares are posted;
// per chunk, whether it is free, claimed or posted, and its sum (the
// counters zeroed before each launch). Waiting for the rest of its row, a
// team polls `patience` times only: a team that has not started by then
// may never start (on a partition of the device, beside another kernel
// holding it, under MPS), so the waiting team claims the free chunks itself
// and sums them from x. A claimed chunk belongs to a running team, which
// posts it without waiting for anything, so every row finishes; only the
// team that claimed a chunk posts it. Each chunk's sum comes from the same
// code over the same lanes whoever computes it, and the row's sum adds
// them in chunk order: the same bits either way.
template <class Accumulation>
struct RowSplit {
  enum State : unsigned { free = 0, claimed = 1, posted = 2 };

  // Polls of the posted count before a team claims missing chunks: about a
  // millisecond on an H200, far longer than the teams of a row take to
  // start on a device they share with nothing else (log 60).
  static constexpr int patience = 1 << 12;

  unsigned* counters;      // [0]: tickets, [1 + row]: posted, then the states
  unsigned* states;        // [row * teams_per_row + chunk]
  Accumulation* partials;  // [row * teams_per_row + chunk]
  int teams_per_row;

  static std::size_t counter_count(std::size_t rows, int teams_per_row) {
    return 1 + rows + rows * teams_per_row;
  }

  static std::size_t partials_offset(std::size_t rows, int teams_per_row) {
    const std::size_t align = alignof(Accumulation);
    return (counter_count(rows, teams_per_row) * sizeof(unsigned) + align - 1) /
           align * align;
  }

  static std::size_t bytes(std::size_t rows, int teams_per_row) {
    return partials_offset(rows, teams_per_row) +
           rows * teams_per_row * sizeof(Accumulation);
  }

  // Zeroes the counters of `rows`, on `space` before the kernel.
  template <class ExecutionSpace>
  static RowSplit zeroed(const ExecutionSpace& space, std::byte* workspace,
                         std::size_t rows, int teams_per_row) {
    auto* counters = reinterpret_cast<unsigned*>(workspace);
    Kokkos::deep_copy(
        space,
        Kokkos::View<unsigned*, typename ExecutionSpace::memory_space,
                     Kokkos::MemoryUnmanaged>(
            counters, counter_count(rows, teams_per_row)),
        0u);
    return {counters, counters + 1 + rows,
            reinterpret_cast<Accumulation*>(
                workspace + partials_offset(rows, teams_per_row)),
            teams_per_row};
  }

  // The next ticket: teams take them in the order they start, so a team
  // that waits for the others of its row waits for teams running or next
  // to start.
  KOKKOS_INLINE_FUNCTION int take_ticket() const {
    return static_cast<int>(Kokkos::atomic_fetch_add(counters, 1u));
  }

  // Whether this call claimed the chunk, which was free.
  KOKKOS_INLINE_FUNCTION bool claim(std::size_t row, int chunk) const {
    return Kokkos::atomic_compare_exchange(&states[row * teams_per_row + chunk],
                                           unsigned(free),
                                           unsigned(claimed)) == unsigned(free);
  }

  // Returns once the chunk, claimed by a running team, is posted.
  KOKKOS_INLINE_FUNCTION void wait_until_posted(std::size_t row,
                                                int chunk) const {
    while (volatile_load(states[row * teams_per_row + chunk]) != posted) {
    }
    Kokkos::memory_fence();
  }

  // Posts the sum of squares of a chunk this team claimed.
  KOKKOS_INLINE_FUNCTION void post(std::size_t row, int chunk,
                                   Accumulation sum) const {
    partials[row * teams_per_row + chunk] = sum;
    Kokkos::memory_fence();  // the sum is visible before it counts as posted
    Kokkos::atomic_exchange(&states[row * teams_per_row + chunk],
                            unsigned(posted));
    Kokkos::atomic_add(&counters[1 + row], 1u);
  }

  // Whether every chunk of the row is posted.
  KOKKOS_INLINE_FUNCTION bool row_posted(std::size_t row) const {
    if (volatile_load(counters[1 + row]) != unsigned(teams_per_row)) {
      return false;
    }
    Kokkos::memory_fence();
    return true;
  }

  // Whether every chunk of the row is posted within `patience` polls.
  KOKKOS_INLINE_FUNCTION bool wait_patiently_for_row(std::size_t row) const {
    for (int poll = 0; poll < patience; ++poll) {
      if (row_posted(row)) {
        return true;
      }
    }
    return false;
  }

  // Returns once every chunk of the row, each claimed by a running team, is
  // posted.
  KOKKOS_INLINE_FUNCTION void wait_for_row(std::size_t row) const {
    while (!row_posted(row)) {
    }
  }

  // The row's sum of squares, once every chunk is posted: added in chunk
  // order. Volatile loads read past the multiprocessor's own cache.
  KOKKOS_INLINE_FUNCTION Accumulation row_sum(std::size_t row) const {
    Accumulation sum = 0;
    for (int c = 0; c < teams_per_row; ++c) {
      sum += volatile_load(partials[row * teams_per_row + c]);
    }
    return sum;
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
