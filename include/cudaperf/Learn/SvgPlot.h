// Line plots written directly as SVG (loss curves of cudaperf-train; the RL trainer's reward curves):
// no plotting package needed on the GPU host, and a browser shows the file.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudaperf::learn {

struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points; // (x, y); non-finite values are skipped
};

struct PlotOptions {
  std::string title, xLabel, yLabel;
  int width = 720, height = 420;
};

std::string svgLinePlot(const std::vector<PlotSeries> &series, const PlotOptions &options);
void writeSvgLinePlot(const std::string &path, const std::vector<PlotSeries> &series, const PlotOptions &options);

} // namespace cudaperf::learn
