// make_grpc_lister: the kubelet's v1.PodResourcesLister/List over a unix
// socket. Why a channel per call: see lister.h.
#include <filesystem>
#include <system_error>

#include <grpcpp/grpcpp.h>

#include "flatten.h"
#include "gpupool/podresources/lister.h"
#include "podresources/v1/api.grpc.pb.h"

namespace gpupool::podresources {
namespace {

// The kubelet's own limit for this API (podresources.DefaultMaxMsgSize, 16 MiB);
// gRPC's default of 4 MiB is too small for a node with many pods.
constexpr int kMaxMessageBytes = 16 * 1024 * 1024;

std::string code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "code " + std::to_string(static_cast<int>(code));
  }
}

std::string target_of(const std::string& path) {
  // gRPC's unix scheme: "unix:///abs/path" or "unix:relative/path".
  return path.starts_with('/') ? "unix://" + path : "unix:" + path;
}

class GrpcLister final : public PodResourcesLister {
 public:
  GrpcLister(std::string socket_path, std::chrono::milliseconds timeout)
      : socket_path_(std::move(socket_path)), timeout_(timeout) {}

  ContainerDevicesList list() override {
    std::error_code ec;
    if (!std::filesystem::exists(socket_path_, ec)) {
      throw PodResourcesUnavailable(socket_path_, "UNAVAILABLE",
                                    "pod-resources socket " + socket_path_ +
                                        " does not exist (is the kubelet running, and its pod-resources directory "
                                        "mounted into this pod?)");
    }
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // no subchannel (or its backoff) shared across calls
    args.SetMaxReceiveMessageSize(kMaxMessageBytes);
    const auto channel = grpc::CreateCustomChannel(target_of(socket_path_), grpc::InsecureChannelCredentials(), args);
    const auto stub = v1::PodResourcesLister::NewStub(channel);

    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + timeout_);
    v1::ListPodResourcesResponse response;
    const grpc::Status status = stub->List(&context, v1::ListPodResourcesRequest(), &response);
    if (!status.ok()) {
      const std::string code = code_name(status.error_code());
      throw PodResourcesUnavailable(socket_path_, code,
                                    "pod-resources List on " + socket_path_ + " failed: " + code + ": " +
                                        status.error_message());
    }
    return detail::flatten(response);
  }

 private:
  const std::string socket_path_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<PodResourcesLister> make_grpc_lister(std::string socket_path, std::chrono::milliseconds timeout) {
  return std::make_unique<GrpcLister>(std::move(socket_path), timeout);
}

}  // namespace gpupool::podresources
