// Placeholder until the launcher lands.
namespace gpupool::testenv {
int anchor = 0;
}  // namespace gpupool::testenv
