// Anchors the test support library so it builds while its directory grows.
namespace gpupool::test {
int support_library_anchor = 0;
}  // namespace gpupool::test
