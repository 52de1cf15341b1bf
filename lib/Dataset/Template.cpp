#include "cudaperf/Dataset/Template.h"

#include "cudaperf/Dataset/Spec.h"

namespace cudaperf::dataset {

std::string render(std::string_view tmpl, const Vars &vars) {
  std::string out;
  out.reserve(tmpl.size() + tmpl.size() / 4);
  size_t i = 0;
  while (i < tmpl.size()) {
    size_t at = tmpl.find("${", i);
    if (at == std::string_view::npos) {
      out.append(tmpl.substr(i));
      break;
    }
    out.append(tmpl.substr(i, at - i));
    size_t end = tmpl.find('}', at + 2);
    if (end == std::string_view::npos)
      throw DatasetError("template: unterminated ${ at offset " + std::to_string(at));
    std::string name(tmpl.substr(at + 2, end - at - 2));
    auto it = vars.find(name);
    if (it == vars.end()) {
      size_t lineStart = tmpl.rfind('\n', at);
      lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
      size_t lineEnd = tmpl.find('\n', at);
      throw DatasetError("template: no value for ${" + name + "} in line: " +
                         std::string(tmpl.substr(lineStart, lineEnd - lineStart)));
    }
    out.append(it->second);
    i = end + 1;
  }
  return out;
}

} // namespace cudaperf::dataset
