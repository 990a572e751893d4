package proctest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultPollEvery is how often Poll tries its condition unless told.
const DefaultPollEvery = 20 * time.Millisecond

// Proc is a running process.
type Proc struct {
	Cmd *exec.Cmd
	// Stdout and Stderr hold what the process wrote, unless it was sent
	// elsewhere when it started.
	Stdout, Stderr *SyncBuffer
	// PollEvery is how often Poll tries its condition.
	PollEvery time.Duration

	done chan struct{}
	err  error // of Wait, once done is closed
}

// StartProc starts bin with env; its output goes to stdout and stderr, or,
// where they are nil, to p.Stdout and p.Stderr.
func StartProc(bin string, env []string, stdout, stderr io.Writer) (*Proc, error) {
	p := &Proc{Cmd: exec.Command(bin), Stdout: &SyncBuffer{}, Stderr: &SyncBuffer{}, PollEvery: DefaultPollEvery,
		done: make(chan struct{})}
	p.Cmd.Env = env
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	if stdout != nil {
		p.Cmd.Stdout = stdout
	}
	if stderr != nil {
		p.Cmd.Stderr = stderr
	}
	if err := p.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		p.err = p.Cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited is nil while the process runs, and says how it ended, with its
// stderr, once it has.
func (p *Proc) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("the process exited: %v; stderr:\n%s", p.err, p.Stderr.String())
	default:
		return nil
	}
}

// Poll tries done every PollEvery until it reports true, and fails when
// the process exits first or within passes.
func (p *Proc) Poll(within time.Duration, done func() bool) error {
	deadline := time.Now().Add(within)
	for {
		if done() {
			return nil
		}
		if err := p.Exited(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v", within)
		}
		time.Sleep(p.PollEvery)
	}
}

// Wait waits at most d for the process to exit and returns its exit code.
func (p *Proc) Wait(d time.Duration) (int, error) {
	select {
	case <-p.done:
	case <-time.After(d):
		return 0, fmt.Errorf("the process did not exit within %v; stderr:\n%s", d, p.Stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, p.err
}

// Stop asks the process to end (SIGTERM) and kills it when it has not
// within grace.
func (p *Proc) Stop(grace time.Duration) {
	Terminate(p.Cmd.Process, p.done, grace)
}

// Terminate asks a process to end (SIGTERM) and kills it when it has not
// within grace; done is closed once its Wait has returned. It returns
// when the process has ended.
func Terminate(proc *os.Process, done <-chan struct{}, grace time.Duration) {
	_ = proc.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = proc.Kill()
		<-done
	}
}

// Kill kills the process, if it still runs, and waits for it.
func (p *Proc) Kill() {
	select {
	case <-p.done:
	default:
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// RSSMiB is the process's resident memory (VmRSS), in MiB.
func (p *Proc) RSSMiB() (float64, error) { return RSSMiB(p.Cmd.Process.Pid) }

// PeakRSSMiB is the highest resident memory the process has had so far
// (VmHWM), in MiB: a whole load's peak, read once the load is done.
func (p *Proc) PeakRSSMiB() (float64, error) { return statusMiB(p.Cmd.Process.Pid, "VmHWM:") }

// RSSMiB reads a process's VmRSS from /proc, in MiB.
func RSSMiB(pid int) (float64, error) { return statusMiB(pid, "VmRSS:") }

// statusMiB reads one of the kB fields of /proc/<pid>/status, in MiB.
func statusMiB(pid int, field string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", strings.TrimSuffix(field, ":"), pid)
}
