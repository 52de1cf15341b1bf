# Finds LLVM and Clang 19. Debian ships several versions side by side: an unpinned
# find_package(Clang) can pick a leftover clang-14 config, and find_package(LLVM 19) fails
# because LLVM wants an exact major.minor, so search only the llvm-19 prefix.
set(CUDAPERF_LLVM_PREFIX "/usr/lib/llvm-19" CACHE PATH "Prefix of the LLVM/Clang 19 installation")
find_package(LLVM REQUIRED CONFIG PATHS ${CUDAPERF_LLVM_PREFIX}/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "cudaperf needs LLVM 19, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
endif()
find_package(Clang REQUIRED CONFIG PATHS ${LLVM_LIBRARY_DIR}/cmake/clang NO_DEFAULT_PATH)
message(STATUS "cudaperf: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")

# Clang's builtin headers (__clang_cuda_*.h) live in its resource directory; a LibTooling binary
# looks for them next to itself, so the directory is recorded here and passed explicitly.
set(CUDAPERF_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}" CACHE PATH
    "Clang resource directory passed to the analyzer")
set(CUDAPERF_LIT "${CUDAPERF_LLVM_PREFIX}/build/utils/lit/lit.py" CACHE FILEPATH "lit.py")
set(CUDAPERF_LLVM_TOOLS_DIR "${CUDAPERF_LLVM_PREFIX}/bin" CACHE PATH "Where FileCheck and not live")

# Libraries that link LLVM use its flags: no exceptions unless LLVM has them, RTTI as LLVM.
function(cudaperf_llvm_target target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_include_directories(${target} PUBLIC ${CUDAPERF_INCLUDE_DIR})
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS})
  if(NOT LLVM_ENABLE_EH)
    target_compile_options(${target} PRIVATE -fno-exceptions)
  endif()
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
