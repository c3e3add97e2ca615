// The unit test binary takes main() from GTest::gtest_main; this file only
// guarantees the target has a source while test/unit grows.
namespace gpupool::test {
int unit_tests_anchor = 0;
}  // namespace gpupool::test
