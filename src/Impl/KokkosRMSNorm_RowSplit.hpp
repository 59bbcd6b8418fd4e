#ifndef KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP
#define KOKKOSRMSNORM_IMPL_ROWSPLIT_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The most teams that may share a row, each waiting for the others: such
// teams must all run at once. A backend guarantees that only for as many
// teams as the device holds, and only if it starts teams in league order
// (as CUDA does in practice; CUB's single-pass scan relies on the same), so
// that the teams of a row, which are consecutive, start together. On CUDA,
// teams that share rows fit twice on any multiprocessor (up to 512 threads
// under LaunchBounds<1024, 1>, 256 under LaunchBounds<512, 1>) and
// concurrency() counts at most 2048 threads a multiprocessor, so
// concurrency() / 2048 teams of a row take at most half of what the device
// holds: two such kernels at once still progress. Elsewhere rows are not
// split (a Serial team waiting for the next team would wait forever).
template <class ExecutionSpace>
int max_teams_per_row([[maybe_unused]] const ExecutionSpace& space) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    return std::max(1, space.concurrency() / 2048);
  }
#endif
  return 1;
}

// Where the teams sharing rows meet: each team's sum of squares of its
// chunk, in a workspace set to -1 before the kernel. A sum of squares is
// never negative (and NaN compares false), so a slot is ready once it is
// not negative: the value is its own flag, with no fence or atomic.
// Volatile accesses go past the multiprocessor's own cache.
template <class Accumulation>
struct RowSplit {
  Accumulation* partials;  // [row * teams_per_row + chunk]
  int teams_per_row;

  static std::size_t bytes(std::size_t rows, int teams_per_row) {
    return rows * teams_per_row * sizeof(Accumulation);
  }

  // Sets every slot of `rows` to -1, on `space` before the kernel.
  template <class ExecutionSpace>
  static RowSplit cleared(const ExecutionSpace& space, std::byte* workspace,
                          std::size_t rows, int teams_per_row) {
    const Kokkos::View<Accumulation*, typename ExecutionSpace::memory_space,
                       Kokkos::MemoryUnmanaged>
        slots(reinterpret_cast<Accumulation*>(workspace), rows * teams_per_row);
    Kokkos::deep_copy(space, slots, Accumulation(-1));
    return {slots.data(), teams_per_row};
  }

  KOKKOS_INLINE_FUNCTION void store(std::size_t row, int chunk,
                                    Accumulation chunk_sum) const {
    *static_cast<volatile Accumulation*>(
        &partials[row * teams_per_row + chunk]) = chunk_sum;
  }

  // The sum of squares of the row's chunk, once its team has stored it.
  KOKKOS_INLINE_FUNCTION Accumulation wait_for(std::size_t row,
                                               int chunk) const {
    const volatile Accumulation* slot = &partials[row * teams_per_row + chunk];
    Accumulation value = *slot;
    while (value < 0) {
      value = *slot;
    }
    return value;
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
