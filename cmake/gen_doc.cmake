# cmake/gen_doc.cmake: one installed program's man page and bash completion,
# printed by the program itself from its flag table (--man-page,
# --bash-completion; src/app/cli_man.c). Run by the build (cmake/docs.cmake):
#   cmake -DPROGRAM=path/to/boids-run -DNAME=boids-run -DDIR=build-dir -P cmake/gen_doc.cmake
# writes DIR/man/man1/NAME.1 and DIR/completions/NAME, each through a
# temporary file renamed over it (a failed run leaves no half file).
foreach(v PROGRAM NAME DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "gen_doc.cmake: -D${v}=... is missing")
  endif()
endforeach()
file(MAKE_DIRECTORY "${DIR}/man/man1" "${DIR}/completions")
foreach(pair "--man-page|man/man1/${NAME}.1" "--bash-completion|completions/${NAME}")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 flag)
  list(GET pair 1 out)
  # The viewer prints its help before it looks for a display: none is needed.
  execute_process(COMMAND "${PROGRAM}" ${flag} OUTPUT_FILE "${DIR}/${out}.tmp" ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    file(REMOVE "${DIR}/${out}.tmp")
    message(FATAL_ERROR "gen_doc.cmake: ${NAME} ${flag}: exit ${rc}: ${err}")
  endif()
  file(RENAME "${DIR}/${out}.tmp" "${DIR}/${out}")
endforeach()
