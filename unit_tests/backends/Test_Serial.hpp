// SPDX-License-Identifier: BSD-3-Clause
#ifndef KOKKOSRMSNORM_TEST_SERIAL_HPP
#define KOKKOSRMSNORM_TEST_SERIAL_HPP

// What the suites need to know of the Serial backend: its cases are
// CasesFor<Kokkos::Serial> (Test_Cases.hpp), with the common tolerances.
#include "Test_Cases.hpp"

#endif
