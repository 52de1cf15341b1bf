// Source templates: raw strings with ${name} placeholders, so CUDA code keeps its own braces.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace cudaperf::dataset {

using Vars = std::map<std::string, std::string>;

// Every ${name} replaced by vars[name]; an unknown name throws DatasetError naming it.
std::string render(std::string_view tmpl, const Vars &vars);

} // namespace cudaperf::dataset
