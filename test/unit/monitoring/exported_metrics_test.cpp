// The list of exported families the dashboard and alert checks use
// (exported_metrics.h): the pool controller's families are registered in its
// sources, and the sample gives every vendor-neutral GPU family.
#include "exported_metrics.h"

#include <gtest/gtest.h>

namespace gpupool::monitoring::testing {
namespace {

TEST(ExportedMetrics, ThePoolControllersFamiliesAreRegisteredThere) {
  const auto sources = pool_controller_sources();
  for (const auto& [name, labels] : kPoolFamilies) {
    EXPECT_NE(sources.find('"' + name + '"'), std::string::npos)
        << name << " is not in lib/pool_controller/*.cpp: renamed or removed? Update kPoolFamilies";
  }
}

TEST(ExportedMetrics, TheSampleGivesEveryGpuFamily) {
  const auto c = exported_catalog();
  for (const char* name :
       {"gpupool_gpu_info", "gpupool_gpu_partition_info", "gpupool_gpu_utilization_ratio",
        "gpupool_gpu_graphics_engine_active_ratio", "gpupool_gpu_dram_active_ratio", "gpupool_gpu_memory_used_bytes",
        "gpupool_gpu_memory_free_bytes", "gpupool_gpu_memory_total_bytes", "gpupool_gpu_temperature_celsius",
        "gpupool_gpu_power_watts", "gpupool_gpu_energy_joules_total", "gpupool_gpu_sm_clock_hertz",
        "gpupool_gpu_memory_clock_hertz", "gpupool_gpu_ecc_errors_total", "gpupool_gpu_xid_errors_total",
        "gpupool_gpu_clock_event_reason", "gpupool_gpu_health", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL_RATIO",
        "gpu_gfx_activity"}) {
    EXPECT_TRUE(c.contains(name)) << name;
  }
  // Device labels, the scrape's, and each family's own.
  EXPECT_EQ(c.at("gpupool_gpu_utilization_ratio"),
            (std::set<std::string>{"node", "gpu", "uuid", "model", "vendor", "gpu_instance_id", "mig_profile", "namespace",
                                   "pod", "container", "tenant", "pool", "job", "instance"}));
  EXPECT_TRUE(c.at("gpupool_gpu_xid_errors_total").contains("xid"));
  EXPECT_TRUE(c.at("gpupool_tenantquota_used").contains("resource"));
  EXPECT_TRUE(c.at("workqueue_queue_duration_seconds_bucket").contains("le"));
  EXPECT_EQ(c.at("up"), (std::set<std::string>{"job", "instance", "pool", "node"}));
}

// The admission reconciler's families (QuotaMetrics), pool allocation included.
TEST(ExportedMetrics, TheQuotaGatesFamilies) {
  const auto c = exported_catalog();
  EXPECT_EQ(c.at("gpupool_pool_allocated"), (std::set<std::string>{"pool", "resource", "job", "instance"}));
  EXPECT_EQ(c.at("gpupool_tenantquota_pods_waiting"), (std::set<std::string>{"namespace", "name", "job", "instance"}));
  EXPECT_EQ(c.at("gpupool_tenantquota_info"), (std::set<std::string>{"namespace", "name", "pool", "tenant", "job", "instance"}));
  EXPECT_FALSE(kPoolFamilies.contains("gpupool_pool_allocated")) << "registered by QuotaMetrics, not lib/pool_controller";
}

}  // namespace
}  // namespace gpupool::monitoring::testing
