// SPDX-License-Identifier: BSD-3-Clause
// A Workspace that outlives Kokkos::finalize, as a static does, holding
// memory: the program must end normally (exit code 0), not abort when the
// workspace is destroyed after Kokkos is gone.
#include <cstddef>
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <KokkosRMSNorm.hpp>

namespace {
KokkosRMSNorm::Workspace<Kokkos::DefaultExecutionSpace> workspace;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const auto memory =
      workspace.reserve(Kokkos::DefaultExecutionSpace(), std::size_t(1) << 20);
  std::printf("workspace of %zu bytes, destroyed after Kokkos::finalize\n",
              memory.extent(0));
  return memory.extent(0) >= (std::size_t(1) << 20) ? 0 : 1;
}
