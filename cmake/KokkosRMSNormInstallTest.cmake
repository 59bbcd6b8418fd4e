# ctest helper: installs the package into a fresh prefix, builds
# examples/rmsnorm_run on its own against it with find_package(KokkosRMSNorm),
# and runs it. Variables: BUILD_DIR, EXAMPLE_DIR, WORK_DIR, CONFIGURE_ARGS.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(
  COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build
          -DKokkosRMSNorm_ROOT=${WORK_DIR}/prefix ${CONFIGURE_ARGS}
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${WORK_DIR}/build/rmsnorm_run OUTPUT_VARIABLE out
                COMMAND_ERROR_IS_FATAL ANY)
message("${out}")
if(NOT out MATCHES "True\n$")
  message(FATAL_ERROR "the installed package's consumer did not print True")
endif()
