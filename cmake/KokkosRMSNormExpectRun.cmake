# SPDX-License-Identifier: BSD-3-Clause
# ctest helper: runs COMMAND (a ;-list) and checks its exit code against
# EXIT_CODE and its standard output, or else its standard error, against
# OUTPUT_REGEX (each alone: a backend's warnings on standard error, such as
# OpenMP's about OMP_PROC_BIND, do not break a match on standard output).
#   cmake -DCOMMAND=... -DEXIT_CODE=... -DOUTPUT_REGEX=... -P this_file
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code STREQUAL EXIT_CODE)
  message(FATAL_ERROR "exit code ${code}, expected ${EXIT_CODE}")
endif()
if(NOT out MATCHES "${OUTPUT_REGEX}" AND NOT err MATCHES "${OUTPUT_REGEX}")
  message(FATAL_ERROR "output does not match '${OUTPUT_REGEX}'")
endif()
