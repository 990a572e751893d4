package memlimit

import (
	"math"
	"testing"
	"testing/fstest"

	"github.com/prometheus/client_golang/prometheus"
)

// The memory limit is found as each way of running catalogd lays its
// cgroup out: systemd's unit (MemoryMax=) and its slice, a Kubernetes
// container in its own cgroup namespace, Docker under cgroup v1 without
// one, and none set.
func TestCgroupMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name  string
		files fstest.MapFS
		want  float64
	}{
		{"systemd, MemoryMax=512M (cgroup v2)", fstest.MapFS{
			"proc/self/cgroup": file("0::/system.slice/catalogd.service\n"),
			"sys/fs/cgroup/system.slice/catalogd.service/memory.max": file("536870912\n"),
			"sys/fs/cgroup/system.slice/memory.max":                  file("max\n"),
		}, 512 * mib},
		{"systemd, a slice tighter than the unit", fstest.MapFS{
			"proc/self/cgroup": file("0::/shop.slice/catalogd.service\n"),
			"sys/fs/cgroup/shop.slice/catalogd.service/memory.max": file("536870912\n"),
			"sys/fs/cgroup/shop.slice/memory.max":                  file("268435456\n"),
		}, 256 * mib},
		{"Kubernetes, limits.memory 256Mi, its own cgroup namespace", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("268435456\n"),
		}, 256 * mib},
		{"Docker, cgroup v1, the host's path in /proc", fstest.MapFS{
			"proc/self/cgroup":                           file("12:cpu,cpuacct:/docker/0123\n4:memory:/docker/0123\n0::/system.slice/containerd.service\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("268435456\n"),
		}, 256 * mib},
		{"cgroup v1, unlimited", fstest.MapFS{
			"proc/self/cgroup": file("4:memory:/user.slice\n"),
			"sys/fs/cgroup/memory/user.slice/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, math.Inf(1)},
		{"cgroup v2, none set", fstest.MapFS{
			"proc/self/cgroup": file("0::/user.slice/session-1.scope\n"),
			"sys/fs/cgroup/user.slice/session-1.scope/memory.max": file("max\n"),
		}, math.Inf(1)},
		{"no cgroup to read", fstest.MapFS{}, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cgroupMemoryLimit(tt.files); got != tt.want {
				t.Errorf("limit %v, want %v", got, tt.want)
			}
		})
	}
}

// The series is exported whatever the machine: a limit, or +Inf.
func TestMemoryLimitExported(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(Collector{})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != 1 || families[0].GetName() != "catalogd_memory_limit_bytes" || len(families[0].GetMetric()) != 1 {
		t.Fatalf("gathered %v, want one series catalogd_memory_limit_bytes", families)
	}
	if v := families[0].GetMetric()[0].GetGauge().GetValue(); !(v > 0) {
		t.Errorf("catalogd_memory_limit_bytes = %v, want a limit or +Inf", v)
	}
}
