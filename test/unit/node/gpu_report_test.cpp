#include "gpupool/node/gpu_report.h"

#include <gtest/gtest.h>

#include "gpupool/backend/simulated_backend.h"

namespace gpupool::node {
namespace {

backend::SimulatedOptions two_a100s() {
  backend::SimulatedOptions o;
  o.node_name = "gpu-node-1";
  o.gpus = backend::parse_simulated_gpus("a100-sxm4-80gb=2", gpu::Catalog::builtin());
  return o;
}

GpuReportOptions report_options() {
  GpuReportOptions o;
  o.node_name = "gpu-node-1";
  o.catalog = &gpu::Catalog::builtin();
  o.metrics_gap = std::chrono::milliseconds(0);
  return o;
}

TEST(GpuReport, HoldsTheStatusLabelsResourcesAndMetricsTheAgentWouldPublish) {
  backend::SimulatedBackend b(two_a100s());
  b.set_mig_mode(1, true);
  b.create_mig_instance(1, "3g.40gb", 0);
  const GpuReport r = gpu_report(b, report_options());
  EXPECT_TRUE(r.inventory_read);
  EXPECT_EQ(r.failed_calls, 0) << r.text;
  EXPECT_NE(r.text.find("\"gpuCount\": 2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\"driverVersion\": \"550.54.15\""), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\"catalogID\": \"a100-sxm4-80gb\""), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nvidia.com/mig.capable=true\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nvidia.com/gpu=1\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nvidia.com/mig-3g.40gb=1\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("# Processes\nnone\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("# XID events\nnone\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Hostname=\"gpu-node-1\""), std::string::npos) << r.text;
}

// A backend whose processes() and metrics() fail, as calls a driver does not
// support do: the sections around them are still there.
class FailingReads : public backend::SimulatedBackend {
 public:
  using SimulatedBackend::SimulatedBackend;
  std::vector<backend::GpuProcess> processes() override {
    throw backend::BackendError("NVML_ERROR_NOT_SUPPORTED", "nvmlDeviceGetComputeRunningProcesses: Not Supported");
  }
  std::vector<backend::GpuMetrics> metrics() override {
    throw backend::BackendError("NVML_ERROR_GPU_IS_LOST", "nvmlDeviceGetTemperature: GPU is lost");
  }
};

TEST(GpuReport, AFailingCallIsReportedInItsSectionAndTheOthersAreStillRead) {
  FailingReads b(two_a100s());
  const GpuReport r = gpu_report(b, report_options());
  EXPECT_TRUE(r.inventory_read);
  EXPECT_EQ(r.failed_calls, 2);
  EXPECT_NE(r.text.find("# Processes\nerror: NVML_ERROR_NOT_SUPPORTED: nvmlDeviceGetComputeRunningProcesses"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("error: NVML_ERROR_GPU_IS_LOST"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("# XID events\nnone\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nvidia.com/gpu=2\n"), std::string::npos) << r.text;
}

class NoInventory : public backend::SimulatedBackend {
 public:
  using SimulatedBackend::SimulatedBackend;
  backend::Inventory inventory() override {
    throw backend::BackendError("NVML_ERROR_DRIVER_NOT_LOADED", "nvmlInit_v2: Driver Not Loaded");
  }
};

TEST(GpuReport, WithoutAnInventoryNoLabelsOrResourcesAreGuessed) {
  NoInventory b(two_a100s());
  const GpuReport r = gpu_report(b, report_options());
  EXPECT_FALSE(r.inventory_read);
  EXPECT_GE(r.failed_calls, 1);
  EXPECT_NE(r.text.find("error: NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("# Node labels"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace gpupool::node
