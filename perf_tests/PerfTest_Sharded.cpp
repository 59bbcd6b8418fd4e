// SPDX-License-Identifier: BSD-3-Clause
// The sharded norm under tensor parallelism, timed on P ranks (a GPU each
// where there are GPUs): each rank holds N / P columns of M bf16 rows (f32
// where Kokkos has no 16-bit bhalf_t).
// Per shape, medians of `repeats` calls synchronized across the ranks:
//   sharded      KokkosRMSNorm's MPI rms_norm (checks, partial sums, one
//                all-reduce of M floats, finish);
//   all_reduce   that all-reduce alone (staged through the host where the
//                MPI cannot reach GPU memory), its share of `sharded`;
//   all_gather   the rows gathered on every rank, then normalized whole;
//   gather       that all-gather alone;
//   unsharded    rms_norm of the whole M x N rows on rank 0's device, and
//   copy         a copy of those bytes there, its ceiling.
// Prints one JSON object a shape on rank 0, with whether the shards agree
// with the all-gather's columns (both sum in float, in other orders: at
// most one bf16 rounding apart).
//
//   mpirun -np 2 KokkosRMSNorm_PerfTest_Sharded [--smoke]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosRMSNorm.hpp>
#include <KokkosRMSNorm_MPI.hpp>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
#ifdef KOKKOSRMSNORM_HAS_BHALF_T
using T = Kokkos::Experimental::bhalf_t;
#else
using T = float;
#endif
// A Kokkos without a GPU backend makes bhalf_t a float.
constexpr const char* dtype = sizeof(T) == 2 ? "bfloat16" : "float32";
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Space>;
constexpr double eps = 1e-6;
constexpr int repeats = 21;

// The median of `repeats` calls of f in microseconds, each call started
// and finished together on the ranks of `comm` (MPI_COMM_SELF: this rank
// alone).
template <class F>
double median_us(MPI_Comm comm, const F& f) {
  std::vector<double> times(repeats);
  for (double& time : times) {
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    f();
    Space().fence();
    MPI_Barrier(comm);
    time = std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now() - start)
               .count();
  }
  std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
  return times[repeats / 2];
}

// Every rank's `local` (the same bytes on each) into `all`, rank by rank:
// on device memory where the MPI reaches it, else staged through host
// buffers allocated once, as an engine would keep them.
template <class View>
class AllGather {
 public:
  AllGather(const View& local, T* all, int ranks)
      : local_(local),
        all_(all),
        local_host_(Kokkos::create_mirror_view(local)),
        all_host_("all-gathered on the host", local.size() * ranks) {}

  void operator()() const {
    const int bytes = static_cast<int>(local_.size() * sizeof(T));
    if (KokkosRMSNorm::Impl::mpi_reaches<Space::memory_space>()) {
      MPI_Allgather(local_.data(), bytes, MPI_BYTE, all_, bytes, MPI_BYTE,
                    MPI_COMM_WORLD);
    } else {
      Kokkos::deep_copy(local_host_, local_);
      MPI_Allgather(local_host_.data(), bytes, MPI_BYTE, all_host_.data(),
                    bytes, MPI_BYTE, MPI_COMM_WORLD);
      Kokkos::deep_copy(Kokkos::View<T*, Space, Kokkos::MemoryUnmanaged>(
                            all_, all_host_.size()),
                        all_host_);
    }
  }

 private:
  View local_;
  T* all_;
  typename View::HostMirror local_host_;
  Kokkos::View<T*, Kokkos::HostSpace> all_host_;
};

// Times one shape; returns whether the shards agree on every rank.
bool time_shape(int rank, int ranks, int tokens, int hidden_asked) {
  // Rows of whole shards: hidden_asked rounded down to a multiple of ranks.
  const int shard = hidden_asked / ranks;
  const int hidden = shard * ranks;
  Matrix q("q shard", tokens, shard), y("y shard", tokens, shard);
  Kokkos::View<T*, Space> weight("weight shard", shard);
  Kokkos::Random_XorShift64_Pool<Space> random(100 + rank);
  Kokkos::fill_random(q, random, T(-1.0f), T(1.0f));
  Kokkos::fill_random(weight, random, T(0.5f), T(1.5f));

  const double sharded_us = median_us(MPI_COMM_WORLD, [&] {
    KokkosRMSNorm::rms_norm(Space(), MPI_COMM_WORLD, q, weight, y, eps);
  });
  Kokkos::View<float*, Space> sums("sums", tokens);
  const double all_reduce_us = median_us(MPI_COMM_WORLD, [&] {
    KokkosRMSNorm::Impl::all_reduce_sums(MPI_COMM_WORLD, sums);
  });

  Kokkos::View<T***, Kokkos::LayoutRight, Space> gathered("gathered", ranks,
                                                          tokens, shard);
  Matrix whole("whole", tokens, hidden), whole_y("whole y", tokens, hidden);
  Kokkos::View<T*, Space> whole_weight("whole weight", hidden);
  AllGather(weight, whole_weight.data(), ranks)();
  const AllGather gather(q, gathered.data(), ranks);
  const double gather_us = median_us(MPI_COMM_WORLD, gather);
  const double all_gather_us = median_us(MPI_COMM_WORLD, [&] {
    gather();
    Kokkos::parallel_for(
        "rows from shards",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>({0, 0}, {tokens, hidden}),
        KOKKOS_LAMBDA(int t, int j) {
          whole(t, j) = gathered(j / shard, t, j % shard);
        });
    KokkosRMSNorm::rms_norm(Space(), whole, whole_weight, whole_y, eps);
  });

  // The shards agree with the all-gather's columns (checked before the
  // copy below overwrites them).
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto whole_y_host =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole_y);
  int agree = 1;
  for (int t = 0; t < tokens; ++t) {
    for (int j = 0; j < shard; ++j) {
      const float a = static_cast<float>(mine(t, j));
      const float b = static_cast<float>(whole_y_host(t, rank * shard + j));
      agree &= std::fabs(a - b) <= 0x1p-7f * std::fabs(b) + 1e-6f;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  // Rank 0's device normalizing the whole rows, and copying their bytes.
  if (rank == 0) {
    const double unsharded_us = median_us(MPI_COMM_SELF, [&] {
      KokkosRMSNorm::rms_norm(Space(), whole, whole_weight, whole_y, eps);
    });
    const double copy_us = median_us(
        MPI_COMM_SELF, [&] { Kokkos::deep_copy(Space(), whole_y, whole); });
    std::printf(
        "{\"dtype\": \"%s\", \"ranks\": %d, \"M\": %d, \"N\": %d, "
        "\"sharded_us\": %.2f, \"all_reduce_us\": %.2f, \"all_gather_us\": "
        "%.2f, \"gather_us\": %.2f, \"unsharded_us\": %.2f, \"copy_us\": "
        "%.2f, \"mpi_reaches_data\": %s, \"agree\": %s}\n",
        dtype, ranks, tokens, hidden, sharded_us, all_reduce_us, all_gather_us,
        gather_us, unsharded_us, copy_us,
        KokkosRMSNorm::Impl::mpi_reaches<Space::memory_space>() ? "true"
                                                                : "false",
        agree ? "true" : "false");
    std::fflush(stdout);
  }
  return agree == 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bool agree = true;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
    const std::vector<int> tokens =
        smoke ? std::vector<int>{1, 64}
              : std::vector<int>{1, 16, 256, 1024, 4096, 16384};
    const std::vector<int> hidden =
        smoke ? std::vector<int>{256} : std::vector<int>{4096, 8192, 16384};
    for (const int n : hidden) {
      for (const int m : tokens) {
        agree &= time_shape(rank, ranks, m, n);
      }
    }
  }
  MPI_Finalize();
  return agree ? 0 : 1;
}
