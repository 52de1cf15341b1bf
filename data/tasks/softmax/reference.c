#include <math.h>

void softmax(const float *x, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *row = x + (long)r * cols;
    float *o = out + (long)r * cols;
    float m = row[0];
    for (int c = 1; c < cols; ++c)
      m = row[c] > m ? row[c] : m;
    double s = 0;
    for (int c = 0; c < cols; ++c)
      s += exp((double)row[c] - m);
    for (int c = 0; c < cols; ++c)
      o[c] = (float)(exp((double)row[c] - m) / s);
  }
}
