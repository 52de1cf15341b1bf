// What travels in a queue job (docs/eval-serve.md, "Many hosts: the Redis queue"): a `--serve`
// request and, unless the request names a shared task directory, the task's files. Everything here
// reads hostile input: names, sizes and types are checked before anything touches the disk.
#pragma once

#include "cudaperf/Support/Json.h"

#include <string>

namespace cudaperf::queue {

struct TaskFileLimits {
  size_t maxFiles = 256;
  size_t maxBytes = size_t(8) << 20; // all files together
  int maxDepth = 8;                  // path components
};

// The regular files under `dir` as {"relative/path": "text"}; symbolic links, non-UTF-8 text and
// anything past the limits are refused (QueueError naming the file).
support::Json packTaskDir(const std::string &dir, const TaskFileLimits &limits = TaskFileLimits());
// Writes packed files into `dir` (which must exist and be empty); QueueError on a bad name, type or size.
void unpackTaskFiles(const support::Json &files, const std::string &dir, const TaskFileLimits &limits = TaskFileLimits());

// A job document: {"protocol", "request" (a serve request without "id"), "task_files" (optional)}.
support::Json makeJob(const support::Json &requestWithoutId, const support::Json *taskFiles);
// The idempotency key: SHA-256 over the task (its files, or its shared path), the candidate's source
// (or path) and the options that change the result (configs, counters, name).
std::string idempotencyKey(const support::Json &job);
// The same from its parts: the request (without "id") and the task's digest (taskFilesDigest of its
// files, or "" when the request names a shared task_dir), so a submitter hashes each task once.
std::string taskFilesDigest(const support::Json &files);
std::string idempotencyKey(const support::Json &requestWithoutId, const std::string &filesDigest);

} // namespace cudaperf::queue
