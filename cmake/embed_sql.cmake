# embed_sql.cmake — profdb_embed_sql(): SQL files embedded in the program,
# as one generated registry (cmake/embed.cmake writes it at build time):
#   NAME.h  one named constant per entry (extern const char SYMBOL[]), the
#           table of every entry and a lookup by name;
#   NAME.c  their texts (each file NUL-terminated; files joined into one
#           entry are separated by a newline).
# No source declares an embedded text by hand: it includes NAME.h.
#
#   profdb_embed_sql(NAME SOURCE_VAR HEADER_DIR
#     FOLDER PREFIX DIR          each DIR/*.sql as PREFIX<file name>
#     FILE SYMBOL FILES...       FILES joined, in order, as SYMBOL
#     ...)
# SOURCE_VAR receives the generated files, to add to a target's sources;
# NAME.h goes to HEADER_DIR (an include folder of that target).
function(profdb_embed_sql name source_var header_dir)
  set(manifest "")
  set(inputs "")
  set(args ${ARGN})
  list(LENGTH args n)
  set(i 0)
  while(i LESS n)
    list(GET args ${i} keyword)
    math(EXPR i "${i} + 1")
    if(keyword STREQUAL "FOLDER")
      list(GET args ${i} prefix)
      math(EXPR i "${i} + 1")
      list(GET args ${i} dir)
      math(EXPR i "${i} + 1")
      file(GLOB files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.sql)
      list(SORT files)
      foreach(file IN LISTS files)
        get_filename_component(base ${file} NAME_WE)
        string(APPEND manifest "${prefix}${base} ${dir}/${base}.sql\n")
        list(APPEND inputs ${file})
      endforeach()
    elseif(keyword STREQUAL "FILE")
      list(GET args ${i} symbol)
      math(EXPR i "${i} + 1")
      set(joined "")
      while(i LESS n)
        list(GET args ${i} file)
        if(file STREQUAL "FOLDER" OR file STREQUAL "FILE")
          break()
        endif()
        math(EXPR i "${i} + 1")
        list(APPEND joined ${file})
        list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/${file})
      endwhile()
      string(REPLACE ";" "|" joined "${joined}")
      string(APPEND manifest "${symbol} ${joined}\n")
    else()
      message(FATAL_ERROR "profdb_embed_sql: FOLDER or FILE expected, not '${keyword}'")
    endif()
  endwhile()
  # Rewritten only when its content changes: no rebuild on every configure.
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${name}.list)
  file(CONFIGURE OUTPUT ${list_file} CONTENT "${manifest}" @ONLY)
  set(out_c ${CMAKE_CURRENT_BINARY_DIR}/${name}.c)
  set(out_h ${header_dir}/${name}.h)
  add_custom_command(
    OUTPUT ${out_c} ${out_h}
    COMMAND ${CMAKE_COMMAND} -DLIST=${list_file} -DROOT=${CMAKE_CURRENT_SOURCE_DIR}
            -DNAME=${name} -DOUT_C=${out_c} -DOUT_H=${out_h}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${inputs} ${list_file} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding the SQL files (${name})" VERBATIM)
  set(${source_var} ${out_c} ${out_h} PARENT_SCOPE)
endfunction()
