# cmake/library.cmake (included by CMakeLists.txt after the component targets):
# the library an outside program links, `boids_shared` (libboids.so, soname
# libboids.so.0) and `boids_static` (libboids.a), and the install rules
# (cmake/install.cmake). Both are made of the components' objects: nothing is
# compiled twice, so the components are position-independent.
set(BOIDS_LIBRARY_PARTS boids_glad boids_core boids_gl boids_gpu boids_platform boids_engine)
set_target_properties(${BOIDS_LIBRARY_PARTS} PROPERTIES POSITION_INDEPENDENT_CODE ON)
# -fPIC alone lets GCC assume any global function may be interposed, and so
# stop inlining or cloning them within a file; the executables link the
# components statically, where nothing is interposed (clang's default).
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  foreach(t ${BOIDS_LIBRARY_PARTS})
    target_compile_options(${t} PRIVATE -fno-semantic-interposition)
  endforeach()
endif()

set(BOIDS_LIBRARY_OBJECTS "")
foreach(t ${BOIDS_LIBRARY_PARTS})
  list(APPEND BOIDS_LIBRARY_OBJECTS $<TARGET_OBJECTS:${t}>)
endforeach()
# What the parts link, less what is inside (glad's dlopen of libGL/libEGL
# needs only libdl; cglm is used through its inline functions): the same
# list for both, private to the shared one.
set(BOIDS_LIBRARY_DEPS PkgConfig::STB PkgConfig::INIH PkgConfig::ZLIB PkgConfig::ZSTD OpenMP::OpenMP_C Threads::Threads m
                       ${CMAKE_DL_LIBS})

add_library(boids_shared SHARED ${BOIDS_LIBRARY_OBJECTS})
target_link_libraries(boids_shared PRIVATE ${BOIDS_LIBRARY_DEPS})
# Only the public API (boids_*) is exported: glad's gl*/egl* pointers and
# the loaders stay inside, so a program with its own glad does not bind to
# ours (cmake/boids.map). -Bsymbolic-functions: calls inside the library
# bind inside it, as -fno-semantic-interposition compiled them.
target_link_options(boids_shared PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/boids.map
                    -Wl,-Bsymbolic-functions)
set_target_properties(boids_shared PROPERTIES
  OUTPUT_NAME boids VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/boids.map)
# Every symbol resolved at link time, so a missing dependency shows here
# and not in a user's program; not under sanitizers (their runtime comes
# with the executable).
if(NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
  target_link_options(boids_shared PRIVATE -Wl,--no-undefined)
endif()

add_library(boids_static STATIC ${BOIDS_LIBRARY_OBJECTS})
target_link_libraries(boids_static PRIVATE ${BOIDS_LIBRARY_DEPS})
set_target_properties(boids_static PROPERTIES OUTPUT_NAME boids ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# The archive's counterpart of the version script: its objects partially
# linked into one (ld -r) whose only global definitions are boids_*, so
# glad's gl*/egl* pointers and loaders, and every helper the components
# share, cannot clash with a program's own (its glad, its helpers).
set(BOIDS_STATIC_OBJECT ${CMAKE_BINARY_DIR}/CMakeFiles/boids_static.dir/libboids-all.o)
add_custom_command(TARGET boids_static POST_BUILD
  COMMAND ${CMAKE_LINKER} -r --whole-archive $<TARGET_FILE:boids_static> -o ${BOIDS_STATIC_OBJECT}
  COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=boids_* ${BOIDS_STATIC_OBJECT}
  COMMAND ${CMAKE_COMMAND} -E rm -f $<TARGET_FILE:boids_static>
  COMMAND ${CMAKE_AR} rcs $<TARGET_FILE:boids_static> ${BOIDS_STATIC_OBJECT}
  VERBATIM)

include(cmake/install.cmake)
