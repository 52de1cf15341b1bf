void reduce_sum(const float *in, float *out, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += in[i];
  out[0] = (float)s;
}
