// The pods the admission reconciler's store keeps, and what of each. Pure.
//
// Only pods that request GPUs count anywhere in admission (charging, the
// gate, reclaim): the store keeps no others (half the pods of the
// benchmark's cluster, and as much of the controller's memory). Of a kept
// pod it keeps what admission reads; the rest is cleared at decode, so every
// stored copy is trimmed alike and an update that changes only a cleared
// field compares equal.
#pragma once

#include "gpupool/kube/json_projection.h"

namespace gpupool::quota_controller {

// The store keeps `pod`: it requests a GPU (trimmed or not: trimming keeps that).
bool admission_keeps(const kube::PodProjection& pod);

// Clears what admission never reads:
// - resources that are not GPU resources, and limits a request repeats
//   (quota::drop_uncounted_resources);
// - the uid of a pod without scheduling gates: the uid is read only while a
//   pod waits at the gate (its Events name it), and gates are only ever
//   removed, so a pod without any never needs it;
// - where the pod runs (a pool is charged by the pod's pool selector; the
//   eviction webhook reads the pod from the API server) and its containers'
//   names: node names longer than 15 characters, the usual kind, would take
//   an allocation in every stored pod.
// What admission charges the pod is the same before and after.
void trim_for_admission(kube::PodProjection& pod);

}  // namespace gpupool::quota_controller
