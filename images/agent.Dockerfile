# gpupool-agent, the node agent (a DaemonSet on the GPU nodes). From the
# repository root:
#
#   docker build -f images/agent.Dockerfile -t gpupool-agent:0.1.0 .
#
# Two stages, as images/controller.Dockerfile: `build` on Debian 12 with
# Debian's packages, the runtime stage debian:bookworm-slim with only the
# shared libraries the binary loads; the ctest images.runtime_libs
# (test/images/runtime_libs_test.py) checks that list against `ldd`.
#
# The agent runs as root, in a privileged pod: it drives the GPU driver
# (NVML, nvidia-smi, amd-smi), repartitions MIG/AMD GPUs and installs drivers
# in the host's namespaces (nsenter --target 1 ...). No USER line here.

FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake ninja-build g++ pkg-config \
      libcurl4-openssl-dev libssl-dev rapidjson-dev libyaml-cpp-dev libspdlog-dev libfmt-dev \
      libcli11-dev libcpp-httplib-dev libtinyxml2-dev libhowardhinnant-date-dev \
      libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The revision gpupool_build_info reports: the context has no .git (see
# .dockerignore), so pass it: --build-arg GPUPOOL_REVISION=$(git rev-parse --short HEAD).
ARG GPUPOOL_REVISION=""
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPOOL_BUILD_TESTS=OFF \
      -DGPUPOOL_REVISION="${GPUPOOL_REVISION}" \
 && cmake --build /build --target gpupool-agent \
 && strip -o /gpupool-agent /build/controller/agent/gpupool-agent

FROM debian:bookworm-slim
# The packages of the libraries gpupool-agent links (readelf -d NEEDED,
# mapped with dpkg -S); libc6, libgcc-s1 and libstdc++6 are already in the
# base, the rest of what ldd shows comes with these packages' Depends. gRPC
# and protobuf are the kubelet pod-resources client (lib/podresources).
# Extras: ca-certificates (TLS to endpoints signed by public CAs) and
# util-linux for nsenter, the default --host-command-prefix (util-linux is
# Essential, so bookworm-slim has it; it is named to say the agent needs it).
# NVML (libnvidia-ml.so.1, dlopened) and nvidia-smi are not in the image: the
# NVIDIA container toolkit mounts the host driver's into the container, as
# the NVIDIA_* variables below ask; amd-smi/rocm-smi likewise come from the host.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcurl4 libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 libcpp-httplib0.11 libtinyxml2-9 \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 \
      ca-certificates util-linux \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /gpupool-agent /usr/local/bin/gpupool-agent
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility
# /metrics (GPU metrics too), /healthz and /readyz.
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/gpupool-agent"]
