# Installed headers define nothing in an unnamed namespace: every translation unit including one
# would get its own copy, and an inline or template function using it would break the
# one-definition rule. Run: cmake -DROOT=<include dir> -P check_unnamed_namespaces.cmake
file(GLOB_RECURSE headers "${ROOT}/*.cuh" "${ROOT}/*.hpp" "${ROOT}/*.h")
set(found "")
foreach(header ${headers})
  file(STRINGS "${header}" lines REGEX "namespace[ \t]*\\{")
  if(lines)
    file(RELATIVE_PATH name "${ROOT}" "${header}")
    string(APPEND found "\n  ${name}")
  endif()
endforeach()
if(found)
  message(FATAL_ERROR "unnamed namespaces in installed headers:${found}")
endif()
list(LENGTH headers count)
message(STATUS "${count} headers, no unnamed namespace")
