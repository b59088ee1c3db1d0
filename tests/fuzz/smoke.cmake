# smoke.cmake — one CTest smoke run of a fuzzer: RUNS inputs from libFuzzer's
# seed 1, starting from the seed corpus SEEDS (read only) and a fresh
# corpus in WORK, so the run is the same every time and on every machine.
# A crash, leak or sanitizer report fails it; the input is kept in WORK.
#   cmake -DFUZZER=path -DSEEDS=dir -DWORK=dir -DRUNS=n -P smoke.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} -runs=${RUNS} -seed=1 -artifact_prefix=${WORK}/
          ${WORK}/corpus ${SEEDS}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(GLOB found ${WORK}/crash-* ${WORK}/leak-* ${WORK}/timeout-* ${WORK}/oom-*)
  message(FATAL_ERROR "${FUZZER} failed (${status}); the input: ${found}\n"
                      "reproduce: ${FUZZER} ${found}")
endif()
