# run.cmake — cmake -P script behind the out_of_tree_build test: install the
# build to a fresh prefix, then configure, build and install the example
# plugin installed there (SAMPLE_DIR, relative to the prefix) twice, once through pkg-config (id
# oot-pkg-config) and once through find_package (id oot-find-package); and
# check the installed castellan lists them from its own prefix.
# Inputs: BUILD_DIR, WORK_DIR, SAMPLE_DIR, LIBDIR, GENERATOR.
foreach(var BUILD_DIR WORK_DIR SAMPLE_DIR LIBDIR GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(SAMPLE_DIR ${prefix}/${SAMPLE_DIR})

# Only the installed prefix may provide castellan.
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig
    ${CMAKE_COMMAND} -G ${GENERATOR} -S ${SAMPLE_DIR} -B ${WORK_DIR}/pkg-config
    -DCASTELLAN_FIND=pkg-config -DSAMPLE_ID=oot-pkg-config)
run(${CMAKE_COMMAND} -G ${GENERATOR} -S ${SAMPLE_DIR} -B ${WORK_DIR}/find-package
    -DCASTELLAN_FIND=find_package -DSAMPLE_ID=oot-find-package
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
foreach(way pkg-config find-package)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${way})
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/${way})
endforeach()

# The installed castellan, run from its prefix (not where the build said it
# would be installed), finds the plugins installed beside it first.
execute_process(COMMAND ${prefix}/bin/castellan plugins
                RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE listing)
set(plugin_dir "${prefix}/${LIBDIR}/castellan/plugins")
foreach(id carcassonne oot-pkg-config oot-find-package)
  string(FIND "${listing}" "${plugin_dir}/${id}  ok" at)
  if(NOT rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "installed castellan does not list ${id} from ${plugin_dir} (${rc}):\n${listing}")
  endif()
endforeach()

# ... and never looks into the build tree it was built from.
string(FIND "${listing}" "${BUILD_DIR}/plugins/" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "installed castellan scans its build tree ${BUILD_DIR}:\n${listing}")
endif()
