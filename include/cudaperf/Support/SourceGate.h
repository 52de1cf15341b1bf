// What a hostile candidate may not ask the compiler for (docs/security.md, "Hostile clients and
// files"): a file outside the toolkit's headers and its own text. Checked on the source text before
// anything compiles or analyses it, and the compiler's messages filtered after, so that neither an
// include nor a message quotes a line of a server file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::support {

// Why `source` is refused, or nothing. Refused: an #include / #include_next / #import / #embed whose
// operand is not a literal "name" or <name> (a macro), or names an absolute path, a ".." component, a
// backslash or "~"; __has_include (a file-existence probe); #line and line markers (they would make a
// message claim another file); "#pragma GCC dependency" and _Pragma (which could say the same). The
// reason names the line: "line 3: #include \"/etc/passwd\": an absolute path".
std::optional<std::string> refuseHostileSource(const std::string &source);

// A compiler's or analyzer's messages with every message located in a file other than one of
// `ownFiles` (file names as they appear in the log, e.g. "candidate.cu") removed together with the
// lines that follow it (the quoted source line, the caret), and "In file included from" chains
// dropped; a note says how many were removed.
std::string keepOwnDiagnostics(const std::string &log, const std::vector<std::string> &ownFiles);

// True when `path` (a relative one taken from `root`) resolves, after symbolic links, to an existing
// file or directory inside `root`; `resolved` is then its real path. For the services' roots: a
// request may name a file only there.
bool resolveInside(const std::string &root, const std::string &path, std::string &resolved);

} // namespace cudaperf::support
