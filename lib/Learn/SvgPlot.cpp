#include "cudaperf/Learn/SvgPlot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace cudaperf::learn {

namespace {

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string format(double v) {
  char buf[32];
  double a = std::fabs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.2g", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// About five round tick values covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  double span = hi - lo;
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 6) {
      step *= m;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(t);
  return out;
}

const char *kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

} // namespace

std::string svgLinePlot(const std::vector<PlotSeries> &series, const PlotOptions &o) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (const PlotSeries &s : series)
    for (auto [x, y] : s.points)
      if (std::isfinite(x) && std::isfinite(y)) {
        xmin = std::min(xmin, x), xmax = std::max(xmax, x);
        ymin = std::min(ymin, y), ymax = std::max(ymax, y);
      }
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  // A range within rounding of one value (-0.8 against -0.7999999999999999) would make the tick step vanish.
  if (xmax - xmin <= 1e-9 * std::max(1.0, std::abs(xmax))) xmax = xmin + 1;
  if (ymax - ymin <= 1e-9 * std::max(1.0, std::abs(ymax))) ymax = ymin + 1;
  double pad = (ymax - ymin) * 0.05;
  ymin -= pad, ymax += pad;
  const double left = 70, right = 20, top = 40, bottom = 50;
  double w = o.width - left - right, h = o.height - top - bottom;
  auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * w; };
  auto py = [&](double y) { return top + (1 - (y - ymin) / (ymax - ymin)) * h; };
  std::string svg;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                o.width, o.height);
  svg += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">", o.width / 2);
  svg += buf + escape(o.title) + "</text>\n";
  for (double t : ticks(xmin, xmax)) {
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"middle\">",
                  px(t), top, px(t), top + h, px(t), top + h + 16);
    svg += buf + format(t) + "</text>\n";
  }
  for (double t : ticks(ymin, ymax)) {
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"end\">",
                  left, py(t), left + w, py(t), left - 6, py(t) + 4);
    svg += buf + format(t) + "</text>\n";
  }
  std::snprintf(buf, sizeof buf, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
                left, top, w, h);
  svg += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", left + w / 2, o.height - 12);
  svg += buf + escape(o.xLabel) + "</text>\n";
  std::snprintf(buf, sizeof buf, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
                top + h / 2, top + h / 2);
  svg += buf + escape(o.yLabel) + "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char *color = kColors[i % (sizeof kColors / sizeof *kColors)];
    std::string path;
    for (auto [x, y] : series[i].points)
      if (std::isfinite(x) && std::isfinite(y)) {
        std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", path.empty() ? "" : " ", px(x), py(y));
        path += buf;
      }
    svg += std::string("<polyline fill=\"none\" stroke=\"") + color + "\" stroke-width=\"1.5\" points=\"" + path + "\"/>\n";
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\">",
                  left + w - 150, top + 14 + 16.0 * double(i), left + w - 130, top + 14 + 16.0 * double(i), color,
                  left + w - 124, top + 18 + 16.0 * double(i));
    svg += buf + escape(series[i].name) + "</text>\n";
  }
  return svg + "</svg>\n";
}

void writeSvgLinePlot(const std::string &path, const std::vector<PlotSeries> &series, const PlotOptions &options) {
  std::ofstream out(path);
  out << svgLinePlot(series, options);
  if (!out) throw std::runtime_error(path + ": cannot write the plot");
}

} // namespace cudaperf::learn
