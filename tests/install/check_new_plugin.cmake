# check_new_plugin.cmake — `castellan new-plugin` from an installed
# castellan writes a game and a Carcassonne expansion that configure,
# build and pass their own tests (which run `castellan check`) as
# generated, against that installation alone; a second run into the same
# folder is refused and changes nothing.
#   cmake -DPREFIX=dir -DWORK=dir -DGENERATOR=... -P check_new_plugin.cmake
foreach(var PREFIX WORK GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_new_plugin.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(castellan ${PREFIX}/bin/castellan)
run(${castellan} new-plugin dice-demo ${WORK}/dice-demo)
run(${castellan} new-plugin road-bonus --expansion-of carcassonne ${WORK}/road-bonus)
foreach(plugin dice-demo road-bonus)
  run(${CMAKE_COMMAND} -G ${GENERATOR} -S ${WORK}/${plugin} -B ${WORK}/${plugin}/build
      -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  run(${CMAKE_COMMAND} --build ${WORK}/${plugin}/build)
  run(${CMAKE_COMMAND} -E chdir ${WORK}/${plugin}/build ctest --output-on-failure)
endforeach()

file(READ ${WORK}/dice-demo/plugin.c before)
execute_process(COMMAND ${castellan} new-plugin dice-demo ${WORK}/dice-demo
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
file(READ ${WORK}/dice-demo/plugin.c after)
if(rc EQUAL 0 OR NOT err MATCHES "already exists; nothing was written" OR NOT before STREQUAL after)
  message(FATAL_ERROR "new-plugin into a used folder: exit ${rc}, said: ${err}")
endif()
message(STATUS "both skeletons build and pass their tests")
