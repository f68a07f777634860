# warpsort as a package: the libraries under the names other projects use (warpsort::warpsort,
# warpsort::validate, warpsort::headers), as aliases inside this build (add_subdirectory,
# FetchContent) and as exported targets of an install (find_package(warpsort CONFIG)).
# Included by the top-level CMakeLists.txt after src/stages and src/host.
include(CMakePackageConfigHelpers)

set_target_properties(warpsort_headers PROPERTIES EXPORT_NAME headers)
set_target_properties(warpsort_stages PROPERTIES EXPORT_NAME stages)
set_target_properties(warpsort PROPERTIES EXPORT_NAME warpsort)
set_target_properties(warpsort_validate PROPERTIES EXPORT_NAME validate)
add_library(warpsort::headers ALIAS warpsort_headers)
add_library(warpsort::stages ALIAS warpsort_stages)
add_library(warpsort::warpsort ALIAS warpsort)
add_library(warpsort::validate ALIAS warpsort_validate)

set(warpsort_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/warpsort)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/warpsort DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS warpsort_headers warpsort_stages warpsort warpsort_validate
        EXPORT warpsortTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT warpsortTargets NAMESPACE warpsort:: DESTINATION ${warpsort_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/warpsortConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/warpsortConfig.cmake
                              INSTALL_DESTINATION ${warpsort_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/warpsortConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/warpsortConfig.cmake ${PROJECT_BINARY_DIR}/warpsortConfigVersion.cmake
        DESTINATION ${warpsort_cmake_dir})
