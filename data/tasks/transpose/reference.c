void transpose(const float *in, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[(long)c * rows + r] = in[(long)r * cols + c];
}
