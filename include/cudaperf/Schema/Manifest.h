// The generated dataset's manifest (docs/dataset.md: DATASET/manifest.jsonl, schema
// cudaperf-dataset-manifest/1): one JSON object per line, one line per task. One typed definition
// that every reader of the file uses (the trainers, the ranker's preparation, the bench's suites).
//
// Required: "task", "dir" and "split", the keys every writer emits (cudaperf-dataset's generator,
// and the small manifests tests and scripts write). The generator also always writes "family",
// "kind", "variant", "params", "configs" and "implementations"; a reader that needs one of them
// asks (requireImplementations) rather than the format requiring it of every line.
//
// Hostile lines are refused with the file, line and field path:
// `manifest.jsonl:3: implementations[0].file: "../x.cu" leaves the task directory`.
// "task" has no ".." component, no leading '/', no backslash or control character (tools make
// folders from it; '/' is allowed: some writers key tasks "pytorch/NAME");
// implementation files are relative paths inside the task directory. "dir" is relative to the
// manifest's folder (or absolute) and is not restricted: test manifests point at shipped tasks.
// The round trip is exact: unknown keys and each object's key order are kept.
#pragma once

#include "cudaperf/Support/Json.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::schema {

using support::Json;

inline constexpr const char *kManifestSchema = "cudaperf-dataset-manifest/1";

// implementations[i]: one implementation file of the task.
struct ManifestImplementation {
  std::string file;                                   // relative to the task directory: "impls/x.cu"
  std::optional<std::vector<std::string>> strategies; // the generator's strategy labels
  std::optional<bool> baseline;
  std::optional<std::string> expected; // against the baseline: "fast", "neutral", "slow"
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

struct ManifestEntry {
  std::string task;  // the task's name (task.json's "name")
  std::string dir;   // the task directory, relative to the manifest's folder
  std::string split; // "train", "val", "test"
  std::optional<std::string> family, kind, variant;
  std::optional<Json> params;                       // an object: the generator's parameters
  std::optional<std::vector<std::string>> configs;  // configuration names, in task order
  std::optional<std::vector<ManifestImplementation>> implementations;
  Json extra = Json::object(); // unknown keys, kept for the round trip
  std::vector<std::string> keyOrder;
  std::string where; // "PATH:LINE" when read by parseManifest (not part of the document)

  // Throws support::SupportError "DOCUMENT: PATH: WHAT" ("manifest.jsonl:3: split: missing").
  static ManifestEntry fromJson(const Json &line, const std::string &document = "manifest line");
  Json toJson() const;

  // The implementations, or a SupportError naming `where` when the line has none (a reader that
  // needs the files: the trainers).
  const std::vector<ManifestImplementation> &requireImplementations() const;
};

// A whole manifest: one entry per non-blank line, in file order. `path` names the file in errors
// ("PATH:LINE: FIELD: WHAT"; a line that is not JSON: "PATH:LINE:COLUMN: ..."). An empty manifest
// is an empty list (callers say what they needed). Throws support::SupportError.
std::vector<ManifestEntry> parseManifest(std::string_view text, const std::string &path);
// parseManifest of a regular file of at most support::kMaxInputFileBytes; an unreadable file is a
// SupportError naming it.
std::vector<ManifestEntry> readManifestFile(const std::string &path);
// Entries back as JSON Lines, one line per entry (the generator's own spelling: no spaces).
std::string writeManifest(const std::vector<ManifestEntry> &entries);

// Whether `name` may name a task or a file made from it: non-empty, at most 200 bytes, no '/' or
// '\\', not "." or "..", no control characters. "" when it may, else why not.
std::string plainNameProblem(std::string_view name);
// Whether `path` stays inside the directory it is relative to: relative, no ".." component, no
// control characters, non-empty. "" when it does, else why not.
std::string relativePathProblem(std::string_view path);

} // namespace cudaperf::schema
