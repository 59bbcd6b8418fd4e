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

# Finds Kokkos Kernels, if present, as the target Kokkos::kokkoskernels.
# Debian's package has no version file (so the call names no version) and
# exports only trilinos_kokkoskernels.
macro(kokkosrmsnorm_find_kokkoskernels)
  find_package(KokkosKernels QUIET)
  if(KokkosKernels_FOUND AND NOT TARGET Kokkos::kokkoskernels
     AND TARGET trilinos_kokkoskernels)
    add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
    set_target_properties(Kokkos::kokkoskernels PROPERTIES
      INTERFACE_LINK_LIBRARIES "trilinos_kokkoskernels;Kokkos::kokkos")
  endif()
endmacro()

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

function(kokkosrmsnorm_kokkos_sources)
  if(Kokkos_COMPILE_LANGUAGE)
    set_source_files_properties(${ARGN} PROPERTIES
      LANGUAGE ${Kokkos_COMPILE_LANGUAGE})
  endif()
endfunction()
