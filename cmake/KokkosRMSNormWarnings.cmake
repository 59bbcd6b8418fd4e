# SPDX-License-Identifier: BSD-3-Clause
# The project's own code (library headers, tests, benchmarks, examples)
# builds clean with -Wall -Wextra -Werror on g++; Kokkos, GoogleTest and
# Google Benchmark headers come in as system headers and are not judged.
function(kokkosrmsnorm_strict_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wall -Wextra -Werror>)
endfunction()
