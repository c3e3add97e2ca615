// How one GPU's health is judged by the pool's health rules (GPUNode
// spec.health, copied from the GPUPolicy): the agent's side of GPU health
// (docs/api.md, "GPU health"). Pure and deterministic; the agent keeps a
// GpuHealthMemory per GPU between judgments and writes the judgment to
// status.gpus[].health and healthReasons.
//
// Rules:
// - Causes. A listed XID; a temperature above criticalCelsius (and, for
//   Degraded only, above warningCelsius); uncorrectable ECC errors (the
//   volatile count, since the last GPU reset) at or above
//   uncorrectableErrors (0 turns this off); correctable ECC errors in the
//   last 24 h above correctableErrorsPerDay. Unlisted XIDs are ignored.
// - Severity. A cause whose rule's action is Taint or Cordon makes the GPU
//   Unhealthy; one whose action is None (and the temperature warning) makes
//   it Degraded: reported, recorded as an Event, nothing taken out. Unhealthy
//   wins over Degraded over Healthy. `action` is the strongest action of the
//   Unhealthy causes (Cordon > Taint).
// - Recovery. A cause counts from its first observation until
//   recoveryPeriod after its last one: an XID (an event) for recoveryPeriod
//   after its last occurrence; a temperature or ECC count for recoveryPeriod
//   after the last judgment that saw it over the threshold. So the GPU stays
//   Unhealthy until every cause has been gone for recoveryPeriod, and the
//   status does not flap around a threshold. There is no second wait: the
//   controller clears the node's taint or cordon as soon as the GPUs are no
//   longer Unhealthy (health_remediation.h).
// - A rule changed or removed applies at once to what is remembered: a cause
//   whose rule is gone, or whose worst value no longer crosses the new
//   threshold, is dropped.
// - XIDs are per GPU (the backends report the GPU only): every MIG instance
//   of an Unhealthy GPU counts as Unhealthy.
// - Withdrawal (the agent's wiring): an Unhealthy GPU, or every MIG instance
//   of it, stops being advertised once the controller has taken its node out
//   (health_remediation.h, is_taken_out_for_health); healthy GPUs of the node
//   are left alone. A node held back by maxUnhealthyNodes keeps advertising,
//   so a bad rule or a fleet-wide event cannot empty a pool.
// - An agent restart forgets the XIDs it saw (NVML does not replay them);
//   temperatures and ECC counts are measured again at once.
//
// Reasons, one per cause, Unhealthy first (then by kind: XIDs by code,
// temperature, uncorrectable ECC, correctable ECC), at most 32 (the CRD's
// maxItems; the 32nd then says how many more), each under 256 characters:
//   XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus; clears at 2026-05-01T10:10:00Z
//   temperature 97 °C above critical 95 °C
//   temperature 88 °C above warning 85 °C
//   12 uncorrectable ECC errors, threshold 1
//   1500 correctable ECC errors in 24 h, threshold 1000
// The number in a temperature or ECC reason is the worst seen while the cause
// counts (so the text changes only when it gets worse). A cause not seen in
// this judgment ends with "; clears at <time>" (XIDs always do). The text
// starts with what parse_health_reason reads back; that grammar is a contract
// between the agent and the controller.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupolicy.h"

namespace gpupool::pool {

using HealthTime = std::chrono::system_clock::time_point;

struct XidObservation {
  std::int32_t code = 0;
  HealthTime at{};  // when the driver reported it (a time after `now` is taken as `now`)
};

// What the agent saw of one GPU since its previous judgment.
struct GpuObservation {
  std::vector<XidObservation> xids;                       // events since the previous judgment; repeats are harmless
  std::optional<std::int32_t> temperature_celsius;        // nullopt: not measured now
  std::optional<std::int64_t> ecc_uncorrectable;          // volatile count since the last GPU reset
  std::optional<std::int64_t> ecc_correctable_last_day;   // correctable errors in the last 24 h
};

enum class HealthCauseKind { xid, temperature_critical, temperature_warning, ecc_uncorrectable, ecc_correctable };

// One cause the agent remembers between judgments.
struct HealthCause {
  HealthCauseKind kind = HealthCauseKind::xid;
  std::int32_t xid = 0;      // kind == xid
  HealthTime first_seen{};   // the start of this episode
  HealthTime last_seen{};    // the last occurrence or the last judgment over the threshold
  std::int64_t worst = 0;    // temperature: highest °C; ECC: highest count; XID: unused

  bool operator==(const HealthCause&) const = default;
};

struct GpuHealthMemory {
  std::vector<HealthCause> causes;           // sorted by (kind, xid)
  std::optional<HealthTime> healthy_since;   // when the last cause stopped counting; nullopt while one counts

  bool operator==(const GpuHealthMemory&) const = default;
};

struct GpuHealthJudgment {
  api::GPUHealth health = api::GPUHealth::healthy;
  std::vector<std::string> reasons;                   // status.gpus[].healthReasons
  api::HealthAction action = api::HealthAction::none;  // the strongest action of the Unhealthy causes
  std::optional<HealthTime> unhealthy_since;           // Unhealthy: the earliest first_seen of its Unhealthy causes
  std::optional<HealthTime> healthy_since;             // no cause counts: since when (when known)
  std::optional<HealthTime> next_check;                // when the next cause stops counting: judge again then
  GpuHealthMemory memory;                              // pass to the next judgment
};

GpuHealthJudgment judge_gpu_health(const api::HealthRules& rules, const GpuHealthMemory& previous,
                                   const GpuObservation& observed, HealthTime now);

// The well-known XIDs' meaning ("GPU has fallen off the bus" for 79); "" for others.
std::string_view xid_description(std::int32_t code);

// What a reason written by judge_gpu_health is about, read back from its
// first words ("XID 79 ...", "temperature 97 °C above critical ...",
// "12 uncorrectable ECC errors ..."); nullopt for any other text.
struct ReasonCause {
  HealthCauseKind kind = HealthCauseKind::xid;
  std::int32_t xid = 0;
  bool operator==(const ReasonCause&) const = default;
};
std::optional<ReasonCause> parse_health_reason(std::string_view reason);

// The action `rules` ask for on this cause: its rule's action; None for an
// unlisted XID, a missing rule and the temperature warning.
api::HealthAction rule_action(const api::HealthRules& rules, HealthCauseKind kind, std::int32_t xid = 0);

// Cordon > Taint > None.
api::HealthAction stronger(api::HealthAction a, api::HealthAction b);

}  // namespace gpupool::pool
