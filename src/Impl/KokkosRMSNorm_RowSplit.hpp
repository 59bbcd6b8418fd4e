#ifndef KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP
#define KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The most teams that may share a row. A team waits for a row only once it
// has published every chunk it took, and chunks are taken in ticket order,
// so only the last row begun can lack a chunk, and the teams stuck waiting
// for it are fewer than its chunks. On CUDA, teams that share rows fit
// twice on any multiprocessor (up to 512 threads under
// LaunchBounds<1024, 1>, 256 under LaunchBounds<512, 2>) and concurrency()
// counts at most 2048 threads a multiprocessor, so concurrency() / 2048
// teams of a row are at most half of what the device holds: two such
// kernels at once, each with as many teams stuck, leave room for the teams
// they wait for. Elsewhere rows are not split (a Serial team waiting for
// the next team would wait forever).
template <class ExecutionSpace>
int max_teams_per_row([[maybe_unused]] const ExecutionSpace& space) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    return std::max(1, space.concurrency() / 2048);
  }
#endif
  return 1;
}

// Whether rows of T are split at all: long 16-bit rows ran faster swept
// twice by one team than split (run 12), their second sweep hitting L2.
template <class T>
inline constexpr bool splits_rows_of_v = sizeof(T) >= 4;

template <class T>
KOKKOS_INLINE_FUNCTION T volatile_load(const T& value) {
  return *static_cast<const volatile T*>(&value);
}

// Where the teams sharing rows meet, in a workspace: a count of tickets
// taken and, per row, a count of teams arrived (both zeroed before each
// launch), then each team's sum of squares.
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

  // The next ticket: chunks are taken in ticket order, so when a team waits
  // for a row, every chunk of the rows before it has been taken, and a row
  // with a chunk not yet taken is the last row begun (see max_teams_per_row).
  KOKKOS_INLINE_FUNCTION int take_ticket() const {
    return static_cast<int>(Kokkos::atomic_fetch_add(counters, 1u));
  }

  // Stores the sum of squares of the row's chunk and counts it arrived.
  KOKKOS_INLINE_FUNCTION void publish(std::size_t row, int chunk,
                                      Accumulation chunk_sum) const {
    partials[row * teams_per_row + chunk] = chunk_sum;
    Kokkos::memory_fence();  // the sum is visible before the arrival
    Kokkos::atomic_increment(counters + 1 + row);
  }

  // The row's sum of squares, once every chunk of the row has been
  // published: added in chunk order, so every team of the row gets the same
  // bits. Volatile loads read past the multiprocessor's own cache.
  KOKKOS_INLINE_FUNCTION Accumulation row_sum(std::size_t row) const {
    const unsigned* arrived = counters + 1 + row;
    while (volatile_load(*arrived) < unsigned(teams_per_row)) {
    }
    Kokkos::memory_fence();
    const Accumulation* row_partials = partials + row * teams_per_row;
    Accumulation sum = 0;
    for (int c = 0; c < teams_per_row; ++c) {
      sum += volatile_load(row_partials[c]);
    }
    return sum;
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
