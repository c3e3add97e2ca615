#include <cstdio>
int main() {
  std::fprintf(stderr, "gpupool-controller: not built yet\n");
  return 1;
}
