# cmake -DMODE=installed|subdirectory|fetchcontent -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=...
#       -DCUDA_ARCHITECTURES=... -DCUDA_COMPILER=... -P consumer.cmake
# installed: `cmake --install` of BUILD_DIR into WORK/prefix, then examples/consumer configured
# with find_package(warpsort CONFIG) from there and built (compiled and linked; it needs a GPU
# only to run). subdirectory / fetchcontent: examples/consumer configured with the source tree
# taken in; the configure must succeed without the CLI's and tests' dependencies being looked
# for, and create no CLI or test directories.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
set(consumer ${SOURCE_DIR}/examples/consumer)
set(common -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
           -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
if(MODE STREQUAL "installed")
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
  foreach(file include/warpsort/warpsort.cuh include/warpsort/custom.cuh
               include/warpsort/detail/stages/index_math.hpp
               lib/cmake/warpsort/warpsortConfig.cmake lib/cmake/warpsort/warpsortConfigVersion.cmake)
    if(NOT EXISTS ${WORK}/prefix/${file})
      message(FATAL_ERROR "not installed: ${file}")
    endif()
  endforeach()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/build ${common} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
  if(NOT EXISTS ${WORK}/build/consumer)
    message(FATAL_ERROR "the consumer was not built")
  endif()
elseif(MODE STREQUAL "subdirectory" OR MODE STREQUAL "fetchcontent")
  if(MODE STREQUAL "subdirectory")
    set(take -DWARPSORT_SOURCE_DIR=${SOURCE_DIR})
    set(tree ${WORK}/build/warpsort)
  else()
    set(take -DWARPSORT_FETCH_SOURCE_DIR=${SOURCE_DIR})
    set(tree ${WORK}/build/_deps/warpsort-build)
  endif()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/build ${common} ${take})
  if(NOT EXISTS ${tree}/src/stages)
    message(FATAL_ERROR "warpsort's library was not configured under ${tree}")
  endif()
  foreach(dir src/cli src/baselines tests examples)
    if(EXISTS ${tree}/${dir})
      message(FATAL_ERROR "${dir} was configured: a consumer must get the library alone")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "MODE must be installed, subdirectory or fetchcontent")
endif()
message(STATUS "package_consumer_${MODE}: ok")
