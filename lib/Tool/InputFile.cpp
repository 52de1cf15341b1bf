//===- InputFile.cpp - what the analyzer accepts as an input file -----------------------===//
//
// A source is read only if it is a regular file of at most kMaxSourceBytes (support::readRegularFile):
// a FIFO, a device such as /dev/zero or a socket is refused at once instead of blocking or reading
// forever (docs/security.md, "Hostile clients and files"). Compiled with exceptions: lib/Support
// reports with SupportError.
//
//===----------------------------------------------------------------------===//
#include "TaskMode.h"
#include "cudaperf/Support/Json.h"

#include <sys/stat.h>

namespace cudaperf {

std::string checkInputFile(const std::string &File) {
  struct stat St;
  if (stat(File.c_str(), &St) != 0)
    return "no such file: '" + File + "'";
  if (S_ISDIR(St.st_mode))
    return "'" + File + "' is a directory, not a source file";
  std::string Text;
  try {
    Text = support::readRegularFile(File, kMaxSourceBytes);
  } catch (const support::SupportError &E) {
    return std::string(E.what()) + " (a source must be a regular file of at most " +
           std::to_string(kMaxSourceBytes >> 20) + " MiB)";
  }
  if (Text.substr(0, 8192).find('\0') != std::string::npos)
    return "'" + File + "' contains binary data; expected CUDA or C++ source";
  return "";
}

} // namespace cudaperf

namespace cudaperf {

bool includesSpecialFile(const std::string &File) {
  std::string Text;
  try {
    Text = support::readRegularFile(File, kMaxSourceBytes);
  } catch (const support::SupportError &) {
    return false; // checkInputFile reports it
  }
  std::string Dir = File.find('/') == std::string::npos ? "." : File.substr(0, File.rfind('/'));
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string::npos)
      End = Text.size();
    std::string Line = Text.substr(Pos, End - Pos);
    Pos = End + 1;
    size_t Hash = Line.find_first_not_of(" \t");
    if (Hash == std::string::npos || Line[Hash] != '#')
      continue;
    size_t Word = Line.find_first_not_of(" \t", Hash + 1);
    if (Word == std::string::npos || Line.compare(Word, 7, "include") != 0)
      continue;
    size_t Open = Line.find_first_of("\"<", Word + 7);
    if (Open == std::string::npos)
      continue;
    size_t Close = Line.find_first_of("\">", Open + 1);
    if (Close == std::string::npos)
      continue;
    std::string Name = Line.substr(Open + 1, Close - Open - 1);
    std::string Path = !Name.empty() && Name[0] == '/' ? Name : Dir + "/" + Name;
    struct stat St;
    if (stat(Path.c_str(), &St) == 0 && !S_ISREG(St.st_mode) && !S_ISDIR(St.st_mode))
      return true;
  }
  return false;
}

} // namespace cudaperf
