void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j)
      C[(long)i * N + j] = 0.0f;
    for (int k = 0; k < K; ++k) {
      float a = A[(long)i * K + k];
      for (int j = 0; j < N; ++j)
        C[(long)i * N + j] += a * B[(long)k * N + j];
    }
  }
}
