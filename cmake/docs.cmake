# cmake/docs.cmake: the man pages and bash completions of the installed
# programs, made at build time by each program from the flag table its
# --help comes from (--man-page, --bash-completion: src/app/cli_man.c;
# cmake/gen_doc.cmake writes them): BUILD/man/man1/PROG.1 and
# BUILD/completions/PROG, installed to share/man/man1 and
# share/bash-completion/completions (bash-completion loads a command's file
# by its name). A cross build cannot run the programs: it makes none.
set(BOIDS_DOC_PROGRAMS boids-run boids-bench boids-validate boids-ensemble boids)
if(NOT CMAKE_CROSSCOMPILING)
  set(boids_docs "")
  foreach(prog ${BOIDS_DOC_PROGRAMS})
    set(man "${CMAKE_BINARY_DIR}/man/man1/${prog}.1")
    set(completion "${CMAKE_BINARY_DIR}/completions/${prog}")
    add_custom_command(
      OUTPUT "${man}" "${completion}"
      COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${prog}> -DNAME=${prog} -DDIR=${CMAKE_BINARY_DIR} -P
              ${CMAKE_SOURCE_DIR}/cmake/gen_doc.cmake
      DEPENDS ${prog} ${CMAKE_SOURCE_DIR}/cmake/gen_doc.cmake
      COMMENT "man page and bash completion of ${prog}"
      VERBATIM)
    list(APPEND boids_docs "${man}" "${completion}")
    install(FILES "${man}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
    install(FILES "${completion}" DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  endforeach()
  add_custom_target(boids-docs ALL DEPENDS ${boids_docs})
endif()
