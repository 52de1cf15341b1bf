// A scratch directory for one test, removed afterwards, with a helper to write files in it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

class TempDir {
public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cudaperf-bench-test-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      std::abort();
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string &relative, const std::string &text) const {
    std::filesystem::path p = std::filesystem::path(path) / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string operator/(const std::string &relative) const { return (std::filesystem::path(path) / relative).string(); }
  std::string path;
};

// A task.json the suite reader accepts (it reads name, kind and configuration names).
inline std::string taskJson(const std::string &name, const std::string &kind = "c-to-cuda") {
  return "{\"name\": \"" + name + "\", \"kind\": \"" + kind +
         "\", \"entry\": \"" + name + "\", \"args\": [], \"configs\": [{\"name\": \"small\"}, {\"name\": \"large\"}]}";
}
