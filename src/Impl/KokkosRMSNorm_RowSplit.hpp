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
// taken and, per row, a count of teams arrived (both zeroed before each
// launch), then each team's sum of squares. The teams of a row wait for
// each other, so they must all run at once: a backend's max_teams_per_row
// says how many it can be sure of.
template <class Accumulation>
struct RowSplit {
  unsigned* counters;      // [0]: tickets taken; [1 + row]: teams arrived
  Accumulation* partials;  // [row * teams_per_row + chunk]
  int teams_per_row;

  static std::size_t partials_offset(std::size_t rows) {
    const std::size_t align = alignof(Accumulation);
    return ((rows + 1) * sizeof(unsigned) + align - 1) / align * align;
  }

  static std::size_t bytes(std::size_t rows, int teams_per_row) {
    return partials_offset(rows) + rows * teams_per_row * sizeof(Accumulation);
  }

  // Zeroes the counters of `rows`, on `space` before the kernel.
  template <class ExecutionSpace>
  static RowSplit zeroed(const ExecutionSpace& space, std::byte* workspace,
                         std::size_t rows, int teams_per_row) {
    Kokkos::deep_copy(
        space,
        Kokkos::View<unsigned*, typename ExecutionSpace::memory_space,
                     Kokkos::MemoryUnmanaged>(
            reinterpret_cast<unsigned*>(workspace), rows + 1),
        0u);
    return {reinterpret_cast<unsigned*>(workspace),
            reinterpret_cast<Accumulation*>(workspace + partials_offset(rows)),
            teams_per_row};
  }

  // The next ticket: teams take them in the order they start, so a team
  // that waits for the others of its row waits only for teams running or
  // next to start.
  KOKKOS_INLINE_FUNCTION int take_ticket() const {
    return static_cast<int>(Kokkos::atomic_fetch_add(counters, 1u));
  }

  // The row's sum of squares, once every team of the row has stored its
  // chunk's: added in chunk order, so every team of the row gets the same
  // bits. Volatile loads read past the multiprocessor's own cache.
  KOKKOS_INLINE_FUNCTION Accumulation row_sum(std::size_t row, int chunk,
                                              Accumulation chunk_sum) const {
    Accumulation* row_partials = partials + row * teams_per_row;
    row_partials[chunk] = chunk_sum;
    Kokkos::memory_fence();  // the sum is visible before the arrival
    unsigned* arrived = counters + 1 + row;
    Kokkos::atomic_add(arrived, 1u);
    while (volatile_load(*arrived) < unsigned(teams_per_row)) {
    }
    Kokkos::memory_fence();
    Accumulation sum = 0;
    for (int c = 0; c < teams_per_row; ++c) {
      sum += volatile_load(row_partials[c]);
    }
    return sum;
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
