// gpupool-client-go-baseline: the baseline the scale benchmark reports
// gpupool-operator's figures against (issue 16).
//
// It models what the controllers users would otherwise run do: the NVIDIA GPU
// Operator, Kueue and the KAI scheduler are Go programs that hold client-go
// SharedInformers on pods (all namespaces) and nodes, caching the full
// objects. This program does exactly that and nothing more, the plain way a
// typical operator does it: a SharedInformerFactory, no resync, no transform
// (no field stripping), full objects in the store, JSON on the wire (client-go's
// default), one event handler per informer. It is deliberately NOT optimized:
// the point is to measure what such a controller costs on the same cluster in
// the same run (time to a synced cache, peak RSS), not the best client-go can
// be made to do.
//
// Usage:
//
//	gpupool-client-go-baseline --kubeconfig PATH [--qps 1000] [--burst 2000]
//	    [--resync 0] [--timeout 10m] [--watch-seconds S] [--until-pods N] [--protobuf]
//
// Output on stdout, one JSON object a line:
//
//	{"sync_s":..,"pods":..,"nodes":..,"heap_alloc_mib":..,"sys_mib":..,"rss_mib":..,"peak_rss_mib":..}
//	    once the caches are synced; sync_s is from starting the informers to
//	    WaitForCacheSync returning.
//	{"phase":"watch","watch_s":..,"pods":..,"nodes":..,"reached_pods":..,
//	 "pod_events":{"add":..,"update":..,"delete":..},"node_events":{..},
//	 "heap_alloc_mib":..,"sys_mib":..,"rss_mib":..,"peak_rss_mib":..}
//	    only with --until-pods or --watch-seconds: after the store held N pods
//	    (or --timeout), then after watching S more seconds (steady state under
//	    churn). Event counts include the adds of the initial list.
//
// peak_rss_mib is VmHWM at the time of the line. The program exits by itself: 0 when done, 1 on an error or when the caches did not sync
// or the store did not reach --until-pods pods before --timeout.
//
// QPS and burst default high (1000/2000) so that client-side throttling, which
// a list+watch barely touches anyway, cannot dominate a figure.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// counts is what an event handler saw; a real controller would enqueue keys.
type counts struct{ add, update, del atomic.Int64 }

func (c *counts) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.add.Add(1) },
		UpdateFunc: func(any, any) { c.update.Add(1) },
		DeleteFunc: func(any) { c.del.Add(1) },
	}
}

func (c *counts) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]int64{"add": c.add.Load(), "update": c.update.Load(), "delete": c.del.Load()})
}

const mib = 1024 * 1024

// memory adds the Go heap figures and the current RSS to a report.
func memory(report map[string]any) map[string]any {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	report["heap_alloc_mib"] = round(float64(m.HeapAlloc) / mib)
	report["sys_mib"] = round(float64(m.Sys) / mib)
	report["rss_mib"] = round(rssMiB())
	report["peak_rss_mib"] = round(peakRSSMiB())
	return report
}

// peakRSSMiB is the most this process has held resident (VmHWM in
// /proc/self/status; 0 if unreadable). A parent's wait4 ru_maxrss would also
// do, but not when the parent is large: a vfork()ed or fork()ed child is
// charged the parent's resident set until it execs.
func peakRSSMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kib, _ := strconv.ParseFloat(f[1], 64)
			return kib / 1024
		}
	}
	return 0
}

// rssMiB is the resident set now, from /proc/self/statm (0 if unreadable).
func rssMiB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseFloat(f[1], 64)
	return pages * float64(os.Getpagesize()) / mib
}

func round(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func emit(report map[string]any) {
	line, _ := json.Marshal(report)
	fmt.Println(string(line))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gpupool-client-go-baseline: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (required)")
	qps := flag.Float64("qps", 1000, "client-side QPS limit (high so throttling does not dominate)")
	burst := flag.Int("burst", 2000, "client-side burst")
	resync := flag.Duration("resync", 0, "informer resync period (0: none, as most controllers)")
	timeout := flag.Duration("timeout", 10*time.Minute, "deadline for syncing and for --until-pods")
	watchSeconds := flag.Float64("watch-seconds", 0, "after the sync (and --until-pods), keep watching this long, then report")
	untilPods := flag.Int("until-pods", 0, "after the sync, keep running until the pod store holds this many pods, then report")
	protobuf := flag.Bool("protobuf", false, "ask for protobuf instead of client-go's default JSON (as Kubernetes' own components do)")
	flag.Parse()
	if *kubeconfig == "" {
		fail("--kubeconfig is required")
	}

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("reading %s: %v", *kubeconfig, err)
	}
	config.QPS = float32(*qps)
	config.Burst = *burst
	config.UserAgent = "gpupool-client-go-baseline"
	if *protobuf {
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("creating the client: %v", err)
	}

	// The informers run until the end; the deadline bounds only the waits.
	stop := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	// The informers every such controller holds: pods in all namespaces, nodes.
	factory := informers.NewSharedInformerFactory(client, *resync)
	podInformer := factory.Core().V1().Pods().Informer()
	nodeInformer := factory.Core().V1().Nodes().Informer()
	var podEvents, nodeEvents counts
	if _, err := podInformer.AddEventHandler(podEvents.handler()); err != nil {
		fail("adding the pod handler: %v", err)
	}
	if _, err := nodeInformer.AddEventHandler(nodeEvents.handler()); err != nil {
		fail("adding the node handler: %v", err)
	}

	start := time.Now()
	factory.Start(stop)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			fail("the %v cache did not sync within %v", typ, *timeout)
		}
	}
	syncS := time.Since(start).Seconds()
	emit(memory(map[string]any{
		"sync_s": round(syncS),
		"pods":   len(podInformer.GetStore().ListKeys()),
		"nodes":  len(nodeInformer.GetStore().ListKeys()),
	}))

	if *untilPods > 0 || *watchSeconds > 0 {
		watchStart := time.Now()
		reached := true
		if *untilPods > 0 {
			// Poll the handler's counts (adds less deletes is the store's
			// size once delivered) rather than listing the store every time.
			stored := func() int64 { return podEvents.add.Load() - podEvents.del.Load() }
			for stored() < int64(*untilPods) && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
			reached = stored() >= int64(*untilPods)
		}
		if reached && *watchSeconds > 0 {
			time.Sleep(time.Duration(*watchSeconds * float64(time.Second)))
		}
		emit(memory(map[string]any{
			"phase":        "watch",
			"watch_s":      round(time.Since(watchStart).Seconds()),
			"pods":         len(podInformer.GetStore().ListKeys()),
			"nodes":        len(nodeInformer.GetStore().ListKeys()),
			"reached_pods": reached,
			"pod_events":   &podEvents,
			"node_events":  &nodeEvents,
		}))
		if !reached {
			fmt.Fprintf(os.Stderr, "gpupool-client-go-baseline: the pod store did not reach %d pods within %v\n", *untilPods, *timeout)
			close(stop)
			factory.Shutdown()
			os.Exit(1)
		}
	}

	// Stop the informers and wait for their goroutines, then exit 0.
	close(stop)
	factory.Shutdown()
}
