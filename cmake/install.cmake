# cmake/install.cmake (from cmake/library.cmake): `cmake --install build
# --prefix P` puts the library, its public headers, boids.pc and the CMake
# package under P. The package file is written here, not exported: the
# library's dependencies are pkg-config imported targets of this build,
# which an outside project does not have.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS boids_shared boids_static
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The headers the API needs (engine.h and what it includes, and the pure
# functions); not render.h (the viewer's drawing, through glad).
install(FILES
  include/boids/engine.h include/boids/core.h include/boids/error.h include/boids/scenario.h
  include/boids/snapshot.h include/boids/record.h include/boids/behaviors.h include/boids/parse.h
  include/boids/atomic.h include/boids/tolerance.h include/boids/platform.h include/boids/gpu.h
  include/boids/quadtree.h include/boids/ensemble.h include/boids/program_stats.h include/boids/debug.h
  include/boids/registry.h
  ${BOIDS_SHARED_INCLUDE}/boids/shared.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/boids)
# The shipped scenarios (and the flow-field image one reads), which the
# installed library finds beside itself (boids_scenario_dir).
install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/boids/scenarios FILES_MATCHING PATTERN "*.ini" PATTERN "*.png")

# What a static link needs besides libboids.a: the same for pkg-config's
# Libs.private and the CMake package's boids::boids_static. Linker flags
# only (their -l, and -L outside the linker's own folders), not the
# packages' names in Requires.private: pkg-config would add those packages'
# Cflags (-I/usr/include/stb) for every user, and demand their .pc files of
# a shared-library one; the public headers include none of their headers.
set(BOIDS_PC_STATIC_DEPS "")
foreach(flag IN LISTS STB_STATIC_LDFLAGS INIH_STATIC_LDFLAGS ZLIB_STATIC_LDFLAGS ZSTD_STATIC_LDFLAGS)
  if(flag MATCHES "^-L(.*)$")
    set(dir "${CMAKE_MATCH_1}")
    if(dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      continue()
    endif()
  endif()
  list(APPEND BOIDS_PC_STATIC_DEPS ${flag})
endforeach()
list(TRANSFORM CMAKE_DL_LIBS PREPEND -l OUTPUT_VARIABLE BOIDS_PC_DL)
set(BOIDS_PC_LIBS_PRIVATE ${BOIDS_PC_STATIC_DEPS} ${OpenMP_C_FLAGS} -lm ${BOIDS_PC_DL} ${CMAKE_THREAD_LIBS_INIT})
list(REMOVE_DUPLICATES BOIDS_PC_LIBS_PRIVATE)
string(JOIN " " BOIDS_PC_LIBS_PRIVATE ${BOIDS_PC_LIBS_PRIVATE})
# prefix relative to the .pc file's folder, so a moved prefix still works.
file(RELATIVE_PATH BOIDS_PC_UP /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" BOIDS_PC_UP "${BOIDS_PC_UP}")
configure_file(cmake/boids.pc.in ${CMAKE_BINARY_DIR}/boids.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/boids.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(BOIDS_CONFIG_STATIC_LIBS ${STB_LIBRARIES} ${INIH_LIBRARIES} ${ZLIB_LIBRARIES} ${ZSTD_LIBRARIES} m ${CMAKE_DL_LIBS})
set(BOIDS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/boids)
configure_package_config_file(cmake/boidsConfig.cmake.in ${CMAKE_BINARY_DIR}/boidsConfig.cmake
                              INSTALL_DESTINATION ${BOIDS_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/boidsConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/boidsConfig.cmake ${CMAKE_BINARY_DIR}/boidsConfigVersion.cmake
        DESTINATION ${BOIDS_CMAKE_DIR})
