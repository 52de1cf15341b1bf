void histogram(const unsigned char *data, unsigned int *counts, int n) {
  for (int b = 0; b < 256; ++b)
    counts[b] = 0;
  for (int i = 0; i < n; ++i)
    counts[data[i]]++;
}
