#ifndef KOKKOSRMSNORM_IMPL_LANES_HPP
#define KOKKOSRMSNORM_IMPL_LANES_HPP

#include <Kokkos_Core.hpp>

namespace KokkosRMSNorm::Impl {

// The lanes that share a row, numbered 0 to count() - 1, each running
// for_each's function once with its number; sum adds up what each lane's
// call of its function adds to a running sum, and every lane gets the total.

// The vector lanes of one team thread.
template <class Member, class Accumulation>
struct VectorLanes {
  const Member& team;
  int vector_length;

  KOKKOS_INLINE_FUNCTION int count() const { return vector_length; }

  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each(const F& f) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vector_length), f);
  }

  template <class F>
  KOKKOS_INLINE_FUNCTION Accumulation sum(const F& f) const {
    Accumulation total = 0;
    Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, vector_length), f,
                            total);
    return total;
  }
};

// Every vector lane of every thread of a team, lane thread x vector_length +
// vector lane. A sum adds each thread's vector lanes, then the threads'
// sums in thread order through `partials` (team scratch, one a thread):
// two team barriers, where a team parallel_reduce takes four to ten on
// CUDA (its reduction across warps joins four warps a step).
template <class Member, class Accumulation>
struct TeamLanes {
  const Member& team;
  int vector_length;
  Accumulation* partials;

  KOKKOS_INLINE_FUNCTION int count() const {
    return team.team_size() * vector_length;
  }

  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each(const F& f) const {
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, team.team_size()), [&](int thread) {
          Kokkos::parallel_for(
              Kokkos::ThreadVectorRange(team, vector_length),
              [&](int lane) { f(thread * vector_length + lane); });
        });
  }

  template <class F>
  KOKKOS_INLINE_FUNCTION Accumulation sum(const F& f) const {
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, team.team_size()), [&](int thread) {
          Accumulation thread_sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, vector_length),
              [&](int lane, Accumulation& partial) {
                f(thread * vector_length + lane, partial);
              },
              thread_sum);
          Kokkos::single(Kokkos::PerThread(team),
                         [&] { partials[thread] = thread_sum; });
        });
    team.team_barrier();
    Accumulation total = 0;
    for (int thread = 0; thread < team.team_size(); ++thread) {
      total += partials[thread];
    }
    team.team_barrier();  // every thread has read partials before reuse
    return total;
  }

  // Team scratch bytes that `partials` takes.
  KOKKOS_INLINE_FUNCTION static int scratch_bytes(int team_size) {
    return team_size * static_cast<int>(sizeof(Accumulation));
  }
};

}  // namespace KokkosRMSNorm::Impl

#endif
