#include "cudaperf/Frontend/Frontend.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <gtest/gtest.h>

using cudaperf::translateNvccArgs;
using Args = std::vector<std::string>;

TEST(NvccArgs, DropsNvccOnlyOptionsAndKeepsTheRest) {
  Args In = {"/usr/local/cuda/bin/nvcc", "-gencode", "arch=compute_90,code=sm_90",
             "-arch=sm_80", "--expt-relaxed-constexpr", "-rdc=true", "-Xptxas", "-v",
             "-lineinfo", "-DNDEBUG", "-I/opt/inc", "-O3", "-c", "k.cu", "-o", "k.o"};
  Args Out = translateNvccArgs(In);
  Args Want = {"clang++", "-DNDEBUG", "-I/opt/inc", "-O3", "-c", "k.cu", "-o", "k.o"};
  EXPECT_EQ(Out, Want);
}

TEST(NvccArgs, UnwrapsHostCompilerOptions) {
  Args Out = translateNvccArgs({"nvcc", "-Xcompiler", "-fPIC,-Wall", "--compiler-options=-O2", "a.cu"});
  Args Want = {"clang++", "-fPIC", "-Wall", "-O2", "a.cu"};
  EXPECT_EQ(Out, Want);
}

TEST(NvccArgs, TranslatesMathAndStandardOptions) {
  Args Out = translateNvccArgs({"nvcc", "--use_fast_math", "--fmad=false", "-std", "c++17",
                                "--std=c++20", "-x", "cu", "a.cu"});
  Args Want = {"clang++", "-ffast-math", "-ffp-contract=off", "-std=c++17", "-std=c++20",
               "-x", "cuda", "a.cu"};
  EXPECT_EQ(Out, Want);
}

TEST(NvccArgs, WerrorAloneDoesNotEatTheNextArgument) {
  Args Out = translateNvccArgs({"nvcc", "-Werror", "all-warnings", "-DX", "a.cu"});
  // nvcc's "-Werror kind" takes a value: both go; the next option stays.
  EXPECT_EQ(Out.back(), "a.cu");
  EXPECT_EQ(std::find(Out.begin(), Out.end(), "all-warnings"), Out.end());
  EXPECT_NE(std::find(Out.begin(), Out.end(), "-DX"), Out.end());
}

TEST(NvccArgs, LeavesClangCommandsAlone) {
  Args In = {"clang++", "-x", "cuda", "--cuda-path=/usr/local/cuda", "-I.", "a.cu"};
  EXPECT_EQ(translateNvccArgs(In), In);
}

TEST(SourceMeaningFlags, KeepsIncludesMacrosAndStandardWithAbsolutePaths) {
  clang::tooling::FixedCompilationDatabase DB(
      "/build", {"-Iinc", "-I", "/abs/inc", "-DN=4", "-U", "X", "-std=c++17", "-O3", "-Wall",
                 "-include", "pre.h", "-gencode", "arch=compute_90,code=sm_90"});
  Args Out = cudaperf::sourceMeaningFlags(DB, "/src/k.cu");
  Args Want = {"-I/build/inc", "-I", "/abs/inc", "-DN=4", "-UX", "-std=c++17", "-include", "/build/pre.h"};
  EXPECT_EQ(Out, Want);
}

TEST(NvccArgs, KeepsCodeGenerationFlagsForNvidiasCompiler) {
  Args Out = cudaperf::nvccCodeGenerationFlags(
      {"nvcc", "--expt-relaxed-constexpr", "-dc", "-maxrregcount", "64", "--use_fast_math",
       "-I/inc", "-arch=sm_90", "--extended-lambda", "-rdc", "false", "--fmad=false", "k.cu"});
  Args Want = {"--expt-relaxed-constexpr", "-rdc=true", "-maxrregcount=64", "--use_fast_math",
               "--extended-lambda", "--fmad=false"};
  EXPECT_EQ(Out, Want);
}
