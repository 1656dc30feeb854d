#include "tools/bench/growth_fit.h"

#include <cmath>

namespace tfipu_bench {

GrowthFit FitGrowth(const std::vector<double>& n, const std::vector<double>& t) {
  std::vector<double> x, y;
  for (size_t i = 0; i < n.size() && i < t.size(); ++i) {
    if (n[i] > 0 && t[i] > 0) {
      x.push_back(std::log(n[i]));
      y.push_back(std::log(t[i]));
    }
  }
  GrowthFit fit;
  fit.exponent = fit.coefficient = fit.r_squared = NAN;
  const double m = static_cast<double>(x.size());
  if (x.size() < 2) return fit;
  double sx = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / m, my = sy / m;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) return fit;
  fit.exponent = sxy / sxx;
  fit.coefficient = std::exp(my - fit.exponent * mx);
  fit.r_squared = syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
  return fit;
}

}  // namespace tfipu_bench
