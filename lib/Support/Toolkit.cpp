#include "cudaperf/Support/Toolkit.h"

#include <algorithm>
#include <cstdlib>
#include <pwd.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::support {

namespace {

std::string environment(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

bool isExecutableFile(const std::string &path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string homeDirectory() {
  if (std::string home = environment("HOME"); !home.empty())
    return home;
  if (const passwd *pw = getpwuid(getuid()); pw && pw->pw_dir)
    return pw->pw_dir;
  return "";
}

} // namespace

std::vector<std::string> toolkitRoots(const std::string &explicitRoot,
                                      const std::vector<std::string> &extraDefaults) {
  std::vector<std::string> roots;
  auto add = [&](const std::string &root) {
    if (!root.empty() && std::find(roots.begin(), roots.end(), root) == roots.end())
      roots.push_back(root);
  };
  add(explicitRoot);
  add(environment("CUDA_PATH"));
  add(environment("CUDA_HOME"));
  for (const std::string &root : extraDefaults)
    add(root);
  add("/usr/local/cuda");
  return roots;
}

std::string findToolkitWithHeaders(const std::vector<std::string> &roots) {
  for (const std::string &root : roots)
    if (exists(root + "/include/cuda_runtime.h"))
      return root;
  return "";
}

std::string findNvcc(const std::vector<std::string> &roots, const std::string &explicitNvcc) {
  std::vector<std::string> candidates = {explicitNvcc, environment("CUDAPERF_NVCC")};
  for (const std::string &root : roots)
    candidates.push_back(root + "/bin/nvcc");
  candidates.push_back(findInPath("nvcc"));
  for (const std::string &c : candidates)
    if (isExecutableFile(c))
      return c;
  return "";
}

std::string findInPath(const std::string &name) {
  std::stringstream path(environment("PATH"));
  std::string dir;
  while (std::getline(path, dir, ':'))
    if (!dir.empty() && isExecutableFile(dir + "/" + name))
      return dir + "/" + name;
  return "";
}

std::string cacheDirectory(const std::string &sub) {
  if (std::string dir = environment("CUDAPERF_CACHE_DIR"); !dir.empty())
    return dir;
  std::string tail = sub.empty() ? "/cudaperf" : "/cudaperf/" + sub;
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + tail;
  if (std::string home = homeDirectory(); !home.empty())
    return home + "/.cache" + tail;
  return "";
}

} // namespace cudaperf::support
