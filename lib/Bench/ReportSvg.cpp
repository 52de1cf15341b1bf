// The plots, written as SVG directly (no plotting program on the GPU host): fast_p against p for
// each reference, and the distribution of correct candidates' speedups on a log2 axis.
#include "cudaperf/Bench/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace cudaperf::bench {

namespace {

const char *kColors[] = {"#1f77b4", "#d62728", "#2ca02c"}; // baseline, eager, compile

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// A plot area with linear axes; callers map data to pixels with x()/y().
struct Frame {
  double left = 70, top = 40, width = 560, height = 320;
  double x0, x1, y0, y1;
  double x(double v) const { return left + (v - x0) / (x1 - x0) * width; }
  double y(double v) const { return top + height - (v - y0) / (y1 - y0) * height; }
};

void axes(std::ostringstream &s, const Frame &f, const std::string &title, const std::string &xLabel,
          const std::string &yLabel, const std::vector<std::pair<double, std::string>> &xTicks,
          const std::vector<std::pair<double, std::string>> &yTicks) {
  s << "<text x=\"" << num(f.left + f.width / 2) << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
    << escape(title) << "</text>\n";
  for (const auto &[v, label] : xTicks) {
    s << "<line x1=\"" << num(f.x(v)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.x(v)) << "\" y2=\""
      << num(f.top + f.height) << "\" stroke=\"#ddd\"/>\n";
    s << "<text x=\"" << num(f.x(v)) << "\" y=\"" << num(f.top + f.height + 16)
      << "\" text-anchor=\"middle\" font-size=\"11\">" << escape(label) << "</text>\n";
  }
  for (const auto &[v, label] : yTicks) {
    s << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.y(v)) << "\" x2=\"" << num(f.left + f.width)
      << "\" y2=\"" << num(f.y(v)) << "\" stroke=\"#ddd\"/>\n";
    s << "<text x=\"" << num(f.left - 6) << "\" y=\"" << num(f.y(v) + 4)
      << "\" text-anchor=\"end\" font-size=\"11\">" << escape(label) << "</text>\n";
  }
  s << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.width) << "\" height=\""
    << num(f.height) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  s << "<text x=\"" << num(f.left + f.width / 2) << "\" y=\"" << num(f.top + f.height + 36)
    << "\" text-anchor=\"middle\" font-size=\"12\">" << escape(xLabel) << "</text>\n";
  s << "<text transform=\"translate(18," << num(f.top + f.height / 2) << ") rotate(-90)\" text-anchor=\"middle\" "
       "font-size=\"12\">" << escape(yLabel) << "</text>\n";
}

void legend(std::ostringstream &s, const Frame &f, const std::vector<std::pair<std::string, std::string>> &items) {
  double y = f.top + 14;
  for (const auto &[color, label] : items) {
    s << "<line x1=\"" << num(f.left + f.width - 190) << "\" y1=\"" << num(y - 4) << "\" x2=\""
      << num(f.left + f.width - 166) << "\" y2=\"" << num(y - 4) << "\" stroke=\"" << color
      << "\" stroke-width=\"2.5\"/>\n";
    s << "<text x=\"" << num(f.left + f.width - 160) << "\" y=\"" << num(y) << "\" font-size=\"11\">" << escape(label)
      << "</text>\n";
    y += 16;
  }
}

std::string svgOpen(double w, double h) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) +
         "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

} // namespace

std::string fastPCurveSvg(const BenchReport &r) {
  std::vector<double> grid;
  for (int i = 0; i <= 150; ++i)
    grid.push_back(i * 0.02);
  std::vector<TaskSummary> tasks =
      summarizeTasks(r.scores, *r.suite, r.references, std::max(1, r.turns), grid);
  Frame f;
  f.x0 = 0;
  f.x1 = 3;
  f.y0 = 0;
  f.y1 = 1;
  std::ostringstream s;
  s << svgOpen(660, 420);
  std::vector<std::pair<double, std::string>> xt, yt;
  for (double v : {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0})
    xt.push_back({v, num(v)});
  for (double v : {0.0, 0.25, 0.5, 0.75, 1.0})
    yt.push_back({v, num(100 * v) + "%"});
  axes(s, f, "fast_p over p: suite " + r.suite->name, "p (speedup threshold)", "tasks correct and faster than p x",
       xt, yt);
  std::vector<std::pair<std::string, std::string>> items;
  for (size_t ri = 0; ri < 3; ++ri) {
    Reference ref = kReferences[ri];
    for (int strict = 0; strict < 2; ++strict) {
      std::string points;
      size_t count = 0;
      for (size_t p = 0; p < grid.size(); ++p) {
        double sum = 0;
        count = 0;
        for (const TaskSummary &t : tasks) {
          if (!t.faster.count(ref))
            continue;
          ++count;
          sum += double((strict ? t.fasterStrict : t.faster).at(ref)[p]) / t.n;
        }
        if (count)
          points += num(f.x(grid[p])) + "," + num(f.y(sum / double(count))) + " ";
      }
      if (!count)
        break;
      s << "<polyline fill=\"none\" stroke=\"" << kColors[ri] << "\" stroke-width=\"" << (strict ? "1.2" : "2.5")
        << "\"" << (strict ? " stroke-dasharray=\"4 3\"" : "") << " points=\"" << points << "\"/>\n";
      if (!strict)
        items.push_back({kColors[ri], std::string("vs ") + referenceName(ref) + " (" + std::to_string(count) +
                                          " tasks)"});
    }
  }
  items.push_back({"#888", "dashed: strict speedup > p"});
  legend(s, f, items);
  s << "</svg>\n";
  return s.str();
}

std::string speedupHistogramSvg(const BenchReport &r) {
  std::vector<TaskSummary> tasks =
      summarizeTasks(r.scores, *r.suite, r.references, std::max(1, r.turns), r.options.pValues);
  const double lo = -4, hi = 4, step = 0.25; // log2 speedup: 1/16x .. 16x
  size_t bins = size_t((hi - lo) / step);
  std::vector<std::vector<int>> counts(3, std::vector<int>(bins, 0));
  int peak = 1;
  for (size_t ri = 0; ri < 3; ++ri)
    for (const TaskSummary &t : tasks)
      if (t.speedups.count(kReferences[ri]))
        for (double v : t.speedups.at(kReferences[ri])) {
          double l = std::clamp(std::log2(v), lo, hi - 1e-9);
          int &c = counts[ri][size_t((l - lo) / step)];
          peak = std::max(peak, ++c);
        }
  Frame f;
  f.x0 = lo;
  f.x1 = hi;
  f.y0 = 0;
  f.y1 = peak * 1.1;
  std::ostringstream s;
  s << svgOpen(660, 420);
  std::vector<std::pair<double, std::string>> xt, yt;
  for (int e = -4; e <= 4; ++e)
    xt.push_back({double(e), e >= 0 ? std::to_string(1 << e) + "x" : "1/" + std::to_string(1 << -e) + "x"});
  int tick = std::max(1, peak / 5);
  for (int v = 0; v <= peak; v += tick)
    yt.push_back({double(v), std::to_string(v)});
  axes(s, f, "Speedups of correct candidates: suite " + r.suite->name, "speedup (log scale; outside 1/16x..16x at the ends)",
       "candidates", xt, yt);
  std::vector<std::pair<std::string, std::string>> items;
  for (size_t ri = 0; ri < 3; ++ri) {
    int total = 0;
    for (int c : counts[ri])
      total += c;
    if (!total)
      continue;
    std::string path = "M" + num(f.x(lo)) + "," + num(f.y(0));
    for (size_t b = 0; b < bins; ++b) {
      double x0 = lo + double(b) * step;
      path += " L" + num(f.x(x0)) + "," + num(f.y(counts[ri][b])) + " L" + num(f.x(x0 + step)) + "," +
              num(f.y(counts[ri][b]));
    }
    path += " L" + num(f.x(hi)) + "," + num(f.y(0)) + " Z";
    s << "<path d=\"" << path << "\" fill=\"" << kColors[ri] << "\" fill-opacity=\"0.18\" stroke=\"" << kColors[ri]
      << "\" stroke-width=\"1.8\"/>\n";
    items.push_back({kColors[ri], std::string("vs ") + referenceName(kReferences[ri]) + " (" + std::to_string(total) +
                                      ")"});
  }
  s << "<line x1=\"" << num(f.x(0)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.x(0)) << "\" y2=\""
    << num(f.top + f.height) << "\" stroke=\"#333\" stroke-dasharray=\"3 3\"/>\n";
  legend(s, f, items);
  s << "</svg>\n";
  return s.str();
}

} // namespace cudaperf::bench
