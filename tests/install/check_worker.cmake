# check_worker.cmake — an installed castellan runs a game in a worker with
# the castellan-worker installed beside it (libexec/castellan), not the
# build tree's: the program is where it belongs and a check in a worker
# passes from the installed layout.
if(NOT EXISTS "${PREFIX}/${LIBEXECDIR}/castellan/castellan-worker")
  message(FATAL_ERROR "castellan-worker is not installed in ${PREFIX}/${LIBEXECDIR}/castellan")
endif()
execute_process(COMMAND "${PREFIX}/${BINDIR}/castellan" check carcassonne --games 1 --isolated
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "every property held")
  message(FATAL_ERROR "check --isolated from the installation: ${rc}\n${out}\n${err}")
endif()
