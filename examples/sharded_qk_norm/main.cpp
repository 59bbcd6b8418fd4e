// SPDX-License-Identifier: BSD-3-Clause
// sharded_qk_norm: OLMo-style QK-norm under tensor parallelism. The query
// projection's columns (heads) are split across the ranks; the norm runs
// over each token's whole query, so it needs every rank's sum of squares.
// KokkosRMSNorm's MPI rms_norm all-reduces one float a token instead of
// gathering the M x N queries. Checks the shards against the all-gather
// approach (gather every shard, normalize the whole rows, keep one's own
// columns), times both, and prints True or False on rank 0.
//
//   mpirun -np 2 sharded_qk_norm [tokens] [hidden]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_MPI.hpp>

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<float**, Kokkos::LayoutRight, Space>;
constexpr double eps = 1e-6;

// The median time of `repeats` calls of f, synchronized across the ranks,
// in microseconds.
template <class F>
double median_us(int repeats, const F& f) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    f();
    Space().fence();
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ok = 1;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int tokens = argc > 1 ? std::atoi(argv[1]) : 512;
    const int hidden = argc > 2 ? std::atoi(argv[2]) : 4096;
    const int shard = hidden / ranks;  // hidden is a multiple of ranks here

    Matrix q("q shard", tokens, shard), normalized("normalized", tokens, shard);
    Kokkos::View<float*, Space> weight("weight shard", shard);
    Kokkos::Random_XorShift64_Pool<Space> random(100 + rank);
    Kokkos::fill_random(q, random, -1.0f, 1.0f);
    Kokkos::fill_random(weight, random, 0.5f, 1.5f);

    // This package: one all-reduce of `tokens` floats.
    const auto sharded = [&] {
      KokkosRMSNorm::rms_norm(Space(), MPI_COMM_WORLD, q, weight, normalized,
                              eps);
    };
    // The all-gather approach: every rank gathers the whole rows (tokens x
    // hidden), normalizes them and keeps its columns.
    Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::HostSpace> gathered(
        "gathered", ranks, tokens, shard);
    Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> whole(
        "whole", tokens, hidden),
        whole_normalized("whole normalized", tokens, hidden);
    Kokkos::View<float*, Kokkos::HostSpace> whole_weight("whole weight",
                                                         hidden);
    const auto q_host = Kokkos::create_mirror_view(q);
    const auto weight_host =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), weight);
    MPI_Allgather(weight_host.data(), shard, MPI_FLOAT, whole_weight.data(),
                  shard, MPI_FLOAT, MPI_COMM_WORLD);
    const auto all_gather = [&] {
      Kokkos::deep_copy(q_host, q);
      MPI_Allgather(q_host.data(), tokens * shard, MPI_FLOAT, gathered.data(),
                    tokens * shard, MPI_FLOAT, MPI_COMM_WORLD);
      for (int r = 0; r < ranks; ++r)
        for (int t = 0; t < tokens; ++t)
          for (int j = 0; j < shard; ++j)
            whole(t, r * shard + j) = gathered(r, t, j);
      KokkosRMSNorm::rms_norm(Kokkos::DefaultHostExecutionSpace(), whole,
                              whole_weight, whole_normalized, eps);
    };

    const double sharded_us = median_us(21, sharded);
    const double gather_us = median_us(21, all_gather);

    // The shards agree with the all-gather's columns (both sum in float, in
    // different orders: a few ulps).
    const auto mine =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), normalized);
    for (int t = 0; t < tokens; ++t) {
      for (int j = 0; j < shard; ++j) {
        const float expected = whole_normalized(t, rank * shard + j);
        ok &= std::fabs(mine(t, j) - expected) <=
              1e-5f * (1 + std::fabs(expected));
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf(
          "%d ranks, %d tokens x %d hidden: sharded norm %.1f us (all-reduce "
          "of %zu bytes), all-gather then norm %.1f us (each rank gathers "
          "rows of %zu bytes)\n%s\n",
          ranks, tokens, hidden, sharded_us, tokens * sizeof(float), gather_us,
          std::size_t(tokens) * hidden * sizeof(float), ok ? "True" : "False");
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
