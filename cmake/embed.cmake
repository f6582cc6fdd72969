# gpustack_embed(NAME OUT FILES...): writes OUT, a C++ file defining the asset table declared in
# src/core/assets.h. Each asset is keyed by its path relative to the source root
# ("matrix/rules/env.toml"), so code looks assets up by the same path a reader sees in the tree.
function(gpustack_embed name out)
  set(files ${ARGN})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_write.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_write.cmake
    COMMENT "Embedding ${name} assets"
    VERBATIM)
endfunction()
