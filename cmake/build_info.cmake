# Writes build_info.h (what this binary was built from) at every build, not only when CMake
# configures: a binary rebuilt after a commit must not name the commit of its first configure.
# The file is replaced only when its text changes, so an unchanged tree recompiles nothing.
#   cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=... -DPROJECT_VERSION=... -DCMAKE_CXX_COMPILER_ID=...
#         -DCMAKE_CXX_COMPILER_VERSION=... -DIBGPU_CUDA_TOOLKIT_FOUND=true|false -P build_info.cmake
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE IBGPU_GIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT IBGPU_GIT)
  set(IBGPU_GIT "unknown")
endif()
configure_file(${TEMPLATE} ${OUTPUT}.new @ONLY)
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
