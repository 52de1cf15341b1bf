void stencil2d(const float *in, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      long i = (long)r * cols + c;
      if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
        out[i] = in[i];
      else
        out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - cols] + in[i + cols]);
    }
}
