# SPDX-License-Identifier: BSD-3-Clause
# Everything that adapts to how Kokkos and Kokkos Kernels were installed lives
# here. A standard install (found through Kokkos_ROOT) passes through
# untouched; the repairs below only fire on the defects they name.

# Debian's Trilinos packages (Kokkos 3.4.01) export Kokkos::kokkos with the
# include directory <prefix>/lib/include, which does not exist (the headers
# are in Kokkos_INCLUDE_DIRS), and CMake refuses to generate with it.
function(kokkosrmsnorm_repair_kokkos_target)
  get_target_property(dirs Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    return()
  endif()
  set(usable)
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "^\\$<" OR EXISTS "${dir}")
      list(APPEND usable "${dir}")
    endif()
  endforeach()
  if(NOT usable STREQUAL dirs)
    list(APPEND usable ${Kokkos_INCLUDE_DIRS})
    set_target_properties(Kokkos::kokkos PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${usable}")
  endif()
endfunction()

# Fails the configure, naming what Kokkos has, unless it has each backend
# named (Serial, OpenMP, Threads, Cuda, HIP, SYCL, ...).
function(kokkosrmsnorm_require_backends)
  foreach(backend IN LISTS ARGN)
    string(TOUPPER "${backend}" upper)
    if(NOT upper IN_LIST Kokkos_DEVICES)
      message(FATAL_ERROR "KokkosRMSNorm: the Kokkos ${Kokkos_VERSION} at "
              "${Kokkos_DIR} has no ${backend} backend (it has: "
              "${Kokkos_DEVICES}); KokkosRMSNorm_REQUIRED_BACKENDS asks for "
              "${ARGN}. Point Kokkos_ROOT at a Kokkos built with it.")
    endif()
  endforeach()
endfunction()

# Finds Kokkos Kernels, if present and built against the Kokkos found, as the
# target Kokkos::kokkoskernels. A Kokkos Kernels release needs the Kokkos
# release of its own major.minor version; Debian's (Trilinos') has no version
# file and was built against the Kokkos in its own include directory. Another
# one (Debian's beside a Kokkos 4 given by Kokkos_ROOT, say) would not
# compile, so the tests and benchmarks that compare with it are left out.
macro(kokkosrmsnorm_find_kokkoskernels)
  find_package(KokkosKernels QUIET)
  if(KokkosKernels_FOUND)
    kokkosrmsnorm_kokkoskernels_matches_kokkos(kokkoskernels_matches)
    if(NOT kokkoskernels_matches)
      message(STATUS "KokkosRMSNorm: not using the Kokkos Kernels at "
              "${KokkosKernels_DIR}: it was built against another Kokkos than "
              "${Kokkos_VERSION} at ${Kokkos_DIR}; the tests and benchmarks "
              "that compare with Kokkos Kernels are skipped")
    elseif(NOT TARGET Kokkos::kokkoskernels AND TARGET trilinos_kokkoskernels)
      add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
      set_target_properties(Kokkos::kokkoskernels PROPERTIES
        INTERFACE_LINK_LIBRARIES "trilinos_kokkoskernels;Kokkos::kokkos")
    endif()
  else()
    message(STATUS "KokkosRMSNorm: no Kokkos Kernels found; the tests and "
            "benchmarks that compare with it are skipped")
  endif()
endmacro()

function(kokkosrmsnorm_kokkoskernels_matches_kokkos result)
  if(KokkosKernels_VERSION)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" kernels_release "${KokkosKernels_VERSION}")
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" kokkos_release "${Kokkos_VERSION}")
    if(kernels_release VERSION_EQUAL kokkos_release)
      set(${result} TRUE PARENT_SCOPE)
      return()
    endif()
  else()
    foreach(kernels_dir IN LISTS KokkosKernels_INCLUDE_DIRS)
      get_filename_component(kernels_dir "${kernels_dir}" REALPATH)
      foreach(kokkos_dir IN LISTS Kokkos_INCLUDE_DIRS)
        get_filename_component(kokkos_dir "${kokkos_dir}" REALPATH)
        if(kernels_dir STREQUAL kokkos_dir)
          set(${result} TRUE PARENT_SCOPE)
          return()
        endif()
      endforeach()
    endforeach()
  endif()
  set(${result} FALSE PARENT_SCOPE)
endfunction()

# A Kokkos built as a CMake CUDA (or HIP) language compiles its users'
# sources in that language too; an nvcc_wrapper Kokkos needs nothing here.
macro(kokkosrmsnorm_enable_kokkos_language)
  if(Kokkos_COMPILE_LANGUAGE AND NOT Kokkos_COMPILE_LANGUAGE STREQUAL "CXX")
    if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA"
       AND NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
    endif()
    enable_language(${Kokkos_COMPILE_LANGUAGE})
  endif()
endmacro()

# Sources that use Kokkos compile in Kokkos's language. Only a language
# other than CXX is named: naming CXX makes CMake add -x c++, which hipcc
# then compiles as plain C++, without HIP.
function(kokkosrmsnorm_kokkos_sources)
  if(Kokkos_COMPILE_LANGUAGE AND NOT Kokkos_COMPILE_LANGUAGE STREQUAL "CXX")
    set_source_files_properties(${ARGN} PROPERTIES
      LANGUAGE ${Kokkos_COMPILE_LANGUAGE})
  endif()
endfunction()
