#ifndef KOKKOSRMSNORM_IMPL_LAUNCH_HPP
#define KOKKOSRMSNORM_IMPL_LAUNCH_HPP

#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosRMSNorm_Kernel.hpp"
#include "KokkosRMSNorm_Lanes.hpp"
#include "KokkosRMSNorm_LaunchShape.hpp"
#include "KokkosRMSNorm_RowSplit.hpp"
#include "KokkosRMSNorm_SplitRowKernel.hpp"

namespace KokkosRMSNorm::Impl {

// Launches the kernel `shape` names for `math`; `workspace` holds
// RowSplit::bytes when the shape splits rows.
template <class ExecutionSpace, class Math>
void launch_rms_norm(const ExecutionSpace& space, const Math& math,
                     const LaunchShape& shape, std::byte* workspace) {
  const bool team_per_row = shape.rows_per_team == 1;
  const int lane_count = team_per_row ? shape.team_size * shape.vector_length
                                      : shape.vector_length;
  // Packs a team covers: a row, or a chunk of one.
  const int span = ceil_div(math.packs_per_row(), shape.teams_per_row);
  const auto launch = [&](const auto& kernel) {
    using Kernel = std::decay_t<decltype(kernel)>;
    // Caps registers at 64 a thread, so that every team size the shape
    // names can launch (up to 1024 threads) and two teams of 512 threads
    // holding eight Packs each share a multiprocessor.
    constexpr bool eight = Kernel::packs_per_lane == 8;
    using Policy = Kokkos::TeamPolicy<
        ExecutionSpace,
        Kokkos::LaunchBounds<eight ? 512 : 1024, eight ? 2 : 1>>;
    Policy policy(space, shape.league_size, shape.team_size,
                  shape.vector_length);
    if constexpr (Kernel::team_per_row) {
      using member_type = typename Policy::member_type;
      policy.set_scratch_size(
          0, Kokkos::PerTeam(
                 TeamLanes<member_type, typename Math::accumulation_type>::
                     scratch_bytes(shape.team_size)));
    }
    Kokkos::parallel_for("KokkosRMSNorm::rms_norm", policy, kernel);
  };
  using std::integral_constant;
  const bool one_sweep = span <= lane_count * shape.packs_per_lane;
  if (shape.teams_per_row > 1) {
    const auto launch_split = [&](auto packs_per_lane, auto one_sweep) {
      launch(SplitRowKernel<decltype(packs_per_lane)::value,
                            decltype(one_sweep)::value, ExecutionSpace, Math>{
          {math, 1, shape.vector_length},
          RowSplit<typename Math::accumulation_type>::zeroed(
              space, workspace, math.rows(), shape.teams_per_row),
          span});
    };
    // Four or eight Packs a lane, the choices for split rows.
    if (!one_sweep) {
      return launch_split(integral_constant<int, 4>(), std::false_type());
    }
    if (shape.packs_per_lane == 8) {
      return launch_split(integral_constant<int, 8>(), std::true_type());
    }
    return launch_split(integral_constant<int, 4>(), std::true_type());
  }
  const auto launch_rows = [&](auto packs_per_lane, auto resident) {
    constexpr int per_lane = decltype(packs_per_lane)::value;
    constexpr bool holds_row = decltype(resident)::value;
    if (team_per_row) {
      launch(RMSNormKernel<per_lane, true, holds_row, ExecutionSpace, Math>{
          math, shape.rows_per_team, shape.vector_length});
    } else {
      launch(RMSNormKernel<per_lane, false, holds_row, ExecutionSpace, Math>{
          math, shape.rows_per_team, shape.vector_length});
    }
  };
  if (!one_sweep) {
    // Longer rows than one sweep are swept four Packs a lane at a time.
    return launch_rows(integral_constant<int, 4>(), std::false_type());
  }
  switch (shape.packs_per_lane) {  // as chosen by choose_launch_shape
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
