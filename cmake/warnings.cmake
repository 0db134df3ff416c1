# stackrec_set_warnings(<target>): our warning set, on our targets only (the
# generated protobuf code and third-party headers are not held to it).
function(stackrec_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(STACKREC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
