// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_THREADS_HPP
#define KOKKOSRMSNORM_TEST_THREADS_HPP

// What the suites need to know of the Threads backend: its cases are
// CasesFor<Kokkos::Threads> (Test_Cases.hpp), with the common tolerances.
#include "Test_Cases.hpp"

#endif
