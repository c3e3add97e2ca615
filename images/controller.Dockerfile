# gpupool-controller, the cluster controller. From the repository root:
#
#   docker build -f images/controller.Dockerfile -t gpupool-controller:0.1.0 .
#
# Two stages: `build` compiles on Debian 12 with Debian's own packages (those
# of tools/dev/setup.sh that building needs); the runtime stage is
# debian:bookworm-slim with only the shared libraries the binary loads, and
# the binary. Both stages must stay on the same Debian release, so that the
# library sonames match. The ctest images.runtime_libs
# (test/images/runtime_libs_test.py) checks the runtime package list against
# `ldd` of the built binary: every library it loads comes from a listed
# package (or from what those depend on), and nothing is listed that no
# library needs, but for the extras named below.

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
 && cmake --build /build --target gpupool-controller \
 && strip -o /gpupool-controller /build/controller/controller/gpupool-controller

FROM debian:bookworm-slim
# The packages of the libraries gpupool-controller links (readelf -d NEEDED,
# mapped with dpkg -S); libc6, libgcc-s1 and libstdc++6 are already in the
# base. What they load in turn (nghttp2, krb5, ldap, ... under libcurl4)
# comes with their Depends. Extras: ca-certificates (TLS to endpoints signed
# by public CAs; the API server's own CA comes from the service account) and
# tzdata (/usr/share/zoneinfo, which date-tz reads for maintenance windows in
# IANA time zones).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcurl4 libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 libcpp-httplib0.11 libdate-tz3 \
      ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /gpupool-controller /usr/local/bin/gpupool-controller
# Not root: the controller needs no privilege on the node (65532, as in distroless "nonroot").
USER 65532:65532
# /metrics, /healthz and /readyz (the webhook's port is set by --webhook-bind-address).
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/gpupool-controller"]
