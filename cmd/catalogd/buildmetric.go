package main

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"

	"catalogd/internal/buildinfo"
)

// registerBuildInfo exports catalogd_build_info, 1, labelled as
// Prometheus's own exporters label their build (version, revision,
// goversion) and with the executable's hash (build), which tells two
// images apart that were built without a version: a dashboard or a query
// shows which build each replica runs, during a rollout too.
func registerBuildInfo(reg prometheus.Registerer) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "catalogd_build_info",
		Help: "1, labelled with the build catalogd runs: its version, revision (commit), Go version and build (a hash of the executable).",
		ConstLabels: prometheus.Labels{"version": buildinfo.Version(), "revision": buildinfo.Commit(),
			"goversion": runtime.Version(), "build": buildinfo.Hash()},
	}, func() float64 { return 1 }))
}
