// Package memlimit exports the memory limit of the process's cgroup.
package memlimit

import (
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports the memory limit catalogd runs under, which an alert
// compares its resident memory with. It is its cgroup's: a container's
// limit in Kubernetes and Docker, MemoryMax= under systemd, so one series
// serves every way catalogd is shipped, where a container runtime's own
// (cAdvisor's) exists in a cluster only and GOMEMLIMIT is a soft target
// the unit does not set. Read at every scrape: a limit may be resized.
type Collector struct{}

var desc = prometheus.NewDesc("catalogd_memory_limit_bytes",
	"The memory limit of catalogd's cgroup (a container's limit, systemd's MemoryMax=), the least of its own and its parents'; +Inf where none is set.",
	nil, nil)

func (Collector) Describe(ch chan<- *prometheus.Desc) { ch <- desc }

func (Collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, cgroupMemoryLimit(os.DirFS("/")))
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup from
// root (the filesystem's root): cgroup v2's memory.max, or v1's
// memory.limit_in_bytes, where the distributions mount them. +Inf when
// neither sets one, or neither can be read.
func cgroupMemoryLimit(root fs.FS) float64 {
	b, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return math.Inf(1)
	}
	limit := math.Inf(1)
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-ID:controllers:path
		f := strings.SplitN(line, ":", 3)
		switch {
		case len(f) != 3:
		case f[0] == "0" && f[1] == "":
			limit = min(limit, leastLimit(root, "sys/fs/cgroup", f[2], "memory.max"))
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			limit = min(limit, leastLimit(root, "sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes"))
		}
	}
	return limit
}

// noLimit is where cgroup v1 says "unlimited": the largest page-aligned
// int64, or near it.
const noLimit = 1 << 62

// leastLimit is the least limit file holds in the cgroup at group under
// mount and in its parents. A container's own cgroup namespace shows the
// root as its group; without one its group's path, which the container's
// mount lacks, ends at the mount's root: the container's.
func leastLimit(root fs.FS, mount, group, file string) float64 {
	limit := math.Inf(1)
	for dir := path.Clean("/" + group); ; dir = path.Dir(dir) {
		if b, err := fs.ReadFile(root, path.Join(mount, dir, file)); err == nil {
			// "max" (v2's none) does not parse.
			if v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && v > 0 && v < noLimit {
				limit = min(limit, v)
			}
		}
		if dir == "/" {
			return limit
		}
	}
}
