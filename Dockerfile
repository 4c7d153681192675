# The operator image: trainer-operator and its shipped plugins on Debian 12, as a non-root user.
#   docker build -t REGISTRY/trainer-operator:TAG .
# manifests/manager/deployment.yaml runs it (placeholder image ghcr.io/kubeflow/trainer-operator;
# manifests/README.md). test/e2e_cluster/rbac_test.py checks that the paths here and there agree.

# ---- build: the packages scripts/setup.sh installs for building (not the test tools) ----
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake binutils lld pkg-config \
      libboost1.81-dev libboost-json1.81-dev libboost-log1.81-dev libboost-test1.81-dev \
      libboost-filesystem1.81-dev libboost-thread1.81-dev \
      libyaml-cpp-dev libssl-dev libsqlite3-dev libtcmalloc-minimal4 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# Release, no tests; the install layout is the README's "Install layout": bin/trainer-operator,
# lib/trainer-operator/plugins/*.so (the binary finds its plugins at ../lib/trainer-operator/plugins).
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=OFF \
 && cmake --build /build -j"$(nproc)" \
 && cmake --install /build --prefix /opt/trainer-operator --strip \
 && test -x /opt/trainer-operator/bin/trainer-operator \
 && test -x /opt/trainer-operator/libexec/trainer-operator/trainer-container-init \
 && ls /opt/trainer-operator/lib/trainer-operator/plugins/*.so

# ---- runtime: only the shared libraries the binary and the plugins link ----
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libboost-json1.81.0 libboost-log1.81.0 libboost-filesystem1.81.0 libboost-thread1.81.0 \
      libboost-atomic1.81.0 libboost-chrono1.81.0 libboost-container1.81.0 libboost-regex1.81.0 \
      libyaml-cpp0.7 libssl3 libsqlite3-0 libtcmalloc-minimal4 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 trainer \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin trainer
# The program and its plugins only (the SDK headers and CMake package stay in the build stage).
COPY --from=build /opt/trainer-operator/bin /opt/trainer-operator/bin
COPY --from=build /opt/trainer-operator/lib/trainer-operator /opt/trainer-operator/lib/trainer-operator
COPY --from=build /opt/trainer-operator/libexec/trainer-operator /opt/trainer-operator/libexec/trainer-operator
USER 65532:65532
ENTRYPOINT ["/opt/trainer-operator/bin/trainer-operator"]
CMD ["run", "--config", "/etc/trainer/config.yaml"]
