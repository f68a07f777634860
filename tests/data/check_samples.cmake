# cmake -DTOOL=<warpsort_make_samples> -DSAMPLES=<data/samples> -DWORK=<dir> -P check_samples.cmake
# Regenerates the samples into WORK and compares them byte for byte with the committed ones.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${TOOL}" "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "warpsort_make_samples failed (${rc}): ${err}")
endif()
file(GLOB generated RELATIVE "${WORK}" "${WORK}/*")
file(GLOB committed RELATIVE "${SAMPLES}" "${SAMPLES}/*.npy" "${SAMPLES}/*.bin")
list(SORT generated)
list(SORT committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "data/samples/ holds [${committed}] but the generator writes [${generated}]; "
                      "regenerate with: warpsort_make_samples ${SAMPLES}")
endif()
foreach(f IN LISTS generated)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/${f}" "${SAMPLES}/${f}"
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "data/samples/${f} differs from what the generators produce now; if the "
                        "change to the distribution is intended, regenerate with: "
                        "warpsort_make_samples ${SAMPLES} (and update data/README.md)")
  endif()
endforeach()
list(LENGTH generated count)
message(STATUS "all ${count} sample files are current")
