# SPDX-License-Identifier: BSD-3-Clause
# ctest helper: builds the main job the way a user's project would take the
# package in, and runs it.
#   MODE=install         install into a fresh prefix, then build
#                        examples/rmsnorm_run on its own with
#                        find_package(KokkosRMSNorm)
#   MODE=add_subdirectory build unit_tests/consumer, which takes the source
#                        tree in with add_subdirectory
# Variables: MODE, SOURCE_DIR, BUILD_DIR, WORK_DIR, CONFIGURE_ARGS.
file(REMOVE_RECURSE ${WORK_DIR})
if(MODE STREQUAL "install")
  execute_process(
    COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
    COMMAND_ERROR_IS_FATAL ANY)
  set(project_dir ${SOURCE_DIR}/examples/rmsnorm_run)
  set(executable ${WORK_DIR}/build/rmsnorm_run)
  list(APPEND CONFIGURE_ARGS -DKokkosRMSNorm_ROOT=${WORK_DIR}/prefix)
else()
  set(project_dir ${SOURCE_DIR}/unit_tests/consumer)
  set(executable ${WORK_DIR}/build/rmsnorm_run/rmsnorm_run)
  list(APPEND CONFIGURE_ARGS -DKOKKOSRMSNORM_SOURCE_DIR=${SOURCE_DIR})
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${project_dir} -B ${WORK_DIR}/build
          ${CONFIGURE_ARGS}
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build --parallel
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${executable} OUTPUT_VARIABLE out
                COMMAND_ERROR_IS_FATAL ANY)
message("${out}")
if(NOT out MATCHES "True\n$")
  message(FATAL_ERROR "the ${MODE} consumer did not print True")
endif()
