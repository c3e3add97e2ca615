// JSON fields of the shared types (common_types.h).
#include "shared_codecs.h"

namespace gpupool::api {

template <class V, Like<MaintenanceWindow> T>
void fields(V& v, T& w) {
  v.required("days", w.days);
  v.required("start", w.start);
  v.required("duration", w.duration);
  v.always("timeZone", w.time_zone);
}

template <class V, Like<DrainOptions> T>
void fields(V& v, T& d) {
  v.always("timeout", d.timeout);
  v.always("skipPodLabel", d.skip_pod_label);
  v.optional("deleteEmptyDirData", d.delete_empty_dir_data);
  v.optional("force", d.force);
}

template <class V, Like<RolloutOrder> T>
void fields(V& v, T& o) {
  v.always("by", o.by);
  v.optional("label", o.label);
}

template <class V, Like<UpgradeStrategy> T>
void fields(V& v, T& u) {
  v.always("maxUnavailable", u.max_unavailable);
  v.always("failureBudget", u.failure_budget);
  v.always("drain", u.drain);
  v.always("cordonOnFailure", u.cordon_on_failure);
  v.optional("maintenanceWindows", u.maintenance_windows);
  v.always("order", u.order);
}

template <class V, Like<TimeSlicing> T>
void fields(V& v, T& t) {
  v.required("replicas", t.replicas);
  v.optional("renameResources", t.rename_resources);
}

template <class V, Like<MPS> T>
void fields(V& v, T& m) {
  v.required("replicas", m.replicas);
  v.optional("defaultActiveThreadPercentage", m.default_active_thread_percentage);
}

template <class V, Like<Sharing> T>
void fields(V& v, T& s) {
  v.always("mode", s.mode);
  v.optional("timeSlicing", s.time_slicing);
  v.optional("mps", s.mps);
}

template <class V, Like<Taint> T>
void fields(V& v, T& t) {
  v.required("key", t.key);
  v.optional("value", t.value);
  v.required("effect", t.effect);
}

template <class V, Like<DriverInstaller> T>
void fields(V& v, T& i) {
  v.always("kind", i.kind);
  v.optional("image", i.image);
  v.optional("parameters", i.parameters);
}

template <class V, Like<DriverSpec> T>
void fields(V& v, T& d) {
  v.required("version", d.version);
  v.always("installer", d.installer);
  v.optional("upgradeStrategy", d.upgrade_strategy);
}

template <class V, Like<MonitoringToggle> T>
void fields(V& v, T& t) {
  v.always("enabled", t.enabled);
}

template <class V, Like<Monitoring> T>
void fields(V& v, T& m) {
  v.always("enabled", m.enabled);
  v.always("scrapeInterval", m.scrape_interval);
  v.always("alerts", m.alerts);
  v.always("dashboard", m.dashboard);
}

template <class V, Like<AMDPartitioning> T>
void fields(V& v, T& a) {
  v.optional("computePartition", a.compute_partition);
  v.optional("memoryPartition", a.memory_partition);
}

GPUPOOL_API_STRUCT_CODEC(MaintenanceWindow)
GPUPOOL_API_STRUCT_CODEC(DrainOptions)
GPUPOOL_API_STRUCT_CODEC(RolloutOrder)
GPUPOOL_API_STRUCT_CODEC(UpgradeStrategy)
GPUPOOL_API_STRUCT_CODEC(TimeSlicing)
GPUPOOL_API_STRUCT_CODEC(MPS)
GPUPOOL_API_STRUCT_CODEC(Sharing)
GPUPOOL_API_STRUCT_CODEC(Taint)
GPUPOOL_API_STRUCT_CODEC(DriverInstaller)
GPUPOOL_API_STRUCT_CODEC(DriverSpec)
GPUPOOL_API_STRUCT_CODEC(MonitoringToggle)
GPUPOOL_API_STRUCT_CODEC(Monitoring)
GPUPOOL_API_STRUCT_CODEC(AMDPartitioning)

}  // namespace gpupool::api
