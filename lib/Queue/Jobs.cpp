// Packing a task's files into a job and unpacking them on a worker, with hostile input in mind:
// no absolute paths, no "..", no links, bounded counts and sizes, files created exclusively.
#include "cudaperf/Queue/Jobs.h"
#include "cudaperf/Queue/WorkQueue.h"
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <cctype>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cudaperf::queue {

namespace {

bool validComponent(const std::string &c) {
  if (c.empty() || c.size() > 128 || c == "." || c == "..")
    return false;
  for (char ch : c)
    if (!std::isalnum((unsigned char)ch) && ch != '_' && ch != '-' && ch != '.')
      return false;
  return true;
}

std::vector<std::string> splitPath(const std::string &name, const TaskFileLimits &limits) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!validComponent(part))
      throw QueueError("task file name '" + name.substr(0, 200) +
                       "': each part must be 1-128 of [A-Za-z0-9_.-], not . or .. (and no leading /)");
    parts.push_back(part);
    if (slash == std::string::npos)
      break;
    start = slash + 1;
  }
  if (int(parts.size()) > limits.maxDepth)
    throw QueueError("task file name '" + name.substr(0, 200) + "' is nested deeper than " +
                     std::to_string(limits.maxDepth));
  return parts;
}

bool validUtf8(const std::string &text) {
  try {
    (void)support::Json(text).dump();
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

} // namespace

support::Json packTaskDir(const std::string &dir, const TaskFileLimits &limits) {
  support::Json files = support::Json::object();
  size_t total = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec)
    throw QueueError("task directory " + dir + ": " + ec.message());
  std::vector<std::pair<std::string, std::string>> found;
  for (; it != end; it.increment(ec)) {
    if (ec)
      throw QueueError("task directory " + dir + ": " + ec.message());
    const fs::directory_entry &e = *it;
    std::string rel = fs::relative(e.path(), dir).generic_string();
    if (e.is_symlink())
      throw QueueError("task file " + rel + " is a symbolic link (send a copy, or a shared path)");
    if (e.is_directory())
      continue;
    if (!e.is_regular_file())
      throw QueueError("task file " + rel + " is not a regular file");
    splitPath(rel, limits);
    if (found.size() + 1 > limits.maxFiles)
      throw QueueError("task directory " + dir + " has more than " + std::to_string(limits.maxFiles) +
                       " files (use a shared path: --share-task-paths)");
    std::string text = support::readRegularFile(e.path().string(), limits.maxBytes + 1);
    total += text.size();
    if (total > limits.maxBytes)
      throw QueueError("task directory " + dir + " is larger than " + std::to_string(limits.maxBytes) +
                       " bytes (use a shared path: --share-task-paths)");
    if (!validUtf8(text))
      throw QueueError("task file " + rel + " is not UTF-8 text (use a shared path: --share-task-paths)");
    found.emplace_back(rel, std::move(text));
  }
  std::sort(found.begin(), found.end());
  for (auto &[name, text] : found)
    files[name] = std::move(text);
  return files;
}

void unpackTaskFiles(const support::Json &files, const std::string &dir, const TaskFileLimits &limits) {
  if (!files.is_object())
    throw QueueError("task_files: expected an object of \"path\": \"text\"");
  if (files.size() > limits.maxFiles)
    throw QueueError("task_files: more than " + std::to_string(limits.maxFiles) + " files");
  size_t total = 0;
  for (const auto &[name, text] : files.items()) {
    if (!text.is_string())
      throw QueueError("task_files[\"" + name.substr(0, 200) + "\"]: expected a string");
    const std::string &content = text.get_ref<const std::string &>();
    total += content.size();
    if (total > limits.maxBytes)
      throw QueueError("task_files: larger than " + std::to_string(limits.maxBytes) + " bytes");
    std::vector<std::string> parts = splitPath(name, limits);
    std::string path = dir;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      path += "/" + parts[i];
      if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        throw QueueError("task_files: cannot create " + path);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw QueueError("task_files: " + name.substr(0, 200) + " clashes with a file");
    }
    path += "/" + parts.back();
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
      throw QueueError("task_files: cannot create " + name.substr(0, 200) + " (a duplicate or a directory?)");
    size_t done = 0;
    while (done < content.size()) {
      ssize_t n = write(fd, content.data() + done, content.size() - done);
      if (n <= 0) {
        close(fd);
        throw QueueError("task_files: cannot write " + name.substr(0, 200));
      }
      done += size_t(n);
    }
    close(fd);
  }
}

support::Json makeJob(const support::Json &requestWithoutId, const support::Json *taskFiles) {
  support::Json job = {{"protocol", kQueueProtocol}, {"request", requestWithoutId}};
  if (taskFiles)
    job["task_files"] = *taskFiles;
  return job;
}

std::string taskFilesDigest(const support::Json &files) {
  support::Sha256 h;
  for (const auto &[name, text] : files.items()) // sorted by packTaskDir; the order is part of the key
    h.field(name).field(support::sha256Hex(text.get<std::string>()));
  return h.hex();
}

std::string idempotencyKey(const support::Json &job) {
  const support::Json *files = support::member(job, "task_files");
  return idempotencyKey(job.at("request"), files ? taskFilesDigest(*files) : "");
}

std::string idempotencyKey(const support::Json &req, const std::string &filesDigest) {
  support::Sha256 h;
  h.field(kQueueProtocol);
  if (!filesDigest.empty())
    h.field("files").field(filesDigest);
  else
    h.field("task_dir").field(req.value("task_dir", ""));
  h.field("source").field(support::sha256Hex(req.value("source", "")));
  h.field("candidate").field(req.value("candidate", ""));
  h.field("name").field(req.value("name", ""));
  const support::Json *configs = support::member(req, "configs");
  h.field("configs").field(configs ? support::writeJson(*configs) : "");
  const support::Json *counters = support::member(req, "counters");
  h.field("counters").field(counters ? support::writeJson(*counters) : "");
  return h.hex();
}

} // namespace cudaperf::queue
